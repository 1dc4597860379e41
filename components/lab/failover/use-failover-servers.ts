'use client';

import { useCallback, useEffect, useState } from 'react';
import { viewFailoverLabAction } from '@/app/actions';
import type { FailoverView } from './failover-servers';

const POLL_MS = 1_000;

/**
 * The pair's servers as each answers now (row, lease, sequence) and the holders: live state the
 * lab's events do not hold, asked every second. The history itself comes by the live feed.
 */
export function useFailoverServers(): { view: FailoverView | undefined; refresh: () => Promise<void> } {
  const [view, setView] = useState<FailoverView | undefined>();
  const refresh = useCallback(async () => {
    const result = await viewFailoverLabAction();
    if (result.ok) setView(result.data);
  }, []);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  return { view, refresh };
}
