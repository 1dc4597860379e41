'use client';

import { useEffect, useState } from 'react';
import { useLabStore } from './lab-store-provider';

/** The database's clock as this browser estimates it (offset from the latest snapshot), ticking. */
export function useDbNow(tickMs = 100): number {
  const offset = useLabStore((s) => s.clockOffsetMs);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);
  return now + offset;
}
