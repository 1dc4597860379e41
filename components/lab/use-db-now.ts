'use client';

import { useEffect, useState } from 'react';
import { useLabStore } from './lab-store-provider';

/**
 * The database's clock as this browser estimates it (offset from the latest snapshot), ticking every
 * `tickMs` while `ticking`; held still otherwise (a view at a fixed moment draws nothing from it, and a
 * page that shows one asks for no re-render, no repaint, until something it shows changes). Ticking
 * again, it reads the clock at once: the first render after a pause is never one of the old moment.
 */
export function useDbNow(tickMs = 100, ticking = true): number {
  const offset = useLabStore((s) => s.clockOffsetMs);
  const [clock, setClock] = useState(() => ({ at: Date.now(), ticking }));
  useEffect(() => {
    if (!ticking) {
      setClock((held) => (held.ticking ? { at: held.at, ticking: false } : held));
      return;
    }
    // Ticking again after a pause: the clock read now (the first render did already); at mount, as it is.
    setClock((held) => (held.ticking ? held : { at: Date.now(), ticking: true }));
    const timer = setInterval(() => setClock({ at: Date.now(), ticking: true }), tickMs);
    return () => clearInterval(timer);
  }, [tickMs, ticking]);
  return (ticking && !clock.ticking ? Date.now() : clock.at) + offset;
}
