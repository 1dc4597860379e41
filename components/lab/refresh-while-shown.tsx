'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

/**
 * Asks the server for the page again every `everyMs` for as long as it is rendered: a notice the server
 * renders from the database's state (a fork waiting in the queue) goes when that state does.
 */
export function RefreshWhileShown({ everyMs }: { everyMs: number }) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => router.refresh(), everyMs);
    return () => clearInterval(timer);
  }, [router, everyMs]);
  return null;
}
