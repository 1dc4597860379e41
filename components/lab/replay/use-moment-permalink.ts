'use client';

import { useEffect, useRef } from 'react';
import { momentParam, parseMomentParam, type ReplayBounds } from '@/lib/model/history/replay';
import { useLabStore } from '../lab-store-provider';

/** How long the moment must rest before the address bar follows it: not on every step of a drag. */
const URL_SYNC_MS = 400;

/**
 * The lab's address and the replayed moment, kept together: `?at=<ms since the first event>` opens
 * the lab replaying at that moment (once its history is in), and while paused the address follows
 * the moment, so that the address bar is always a link to what is on screen.
 */
export function useMomentPermalink(bounds: ReplayBounds | undefined): void {
  const lab = useLabStore((s) => s.lab);
  const live = useLabStore((s) => s.live);
  const connection = useLabStore((s) => s.connection);
  const replayAt = useLabStore((s) => s.replayAt);
  const playing = useLabStore((s) => s.replayPlaying);
  const replayTo = useLabStore((s) => s.replayTo);
  // undefined: the address not read yet; a string: a moment waiting for the history; null: done.
  const pending = useRef<string | null | undefined>(undefined);
  const from = bounds?.from;

  useEffect(() => {
    if (pending.current === undefined) pending.current = new URLSearchParams(window.location.search).get('at');
  }, []);

  useEffect(() => {
    if (!live || typeof pending.current !== 'string' || connection !== 'live') return;
    const at = parseMomentParam(pending.current, bounds);
    pending.current = null;
    if (at !== undefined) replayTo(at);
  }, [live, connection, bounds, replayTo]);

  useEffect(() => {
    // Not before the history is in: a link's moment is applied first, or dropped if it names nothing.
    if (!live || pending.current !== null || playing || connection !== 'live') return;
    const timer = setTimeout(() => {
      // Only a lab's own page: a walkthrough's address runs steps when opened, it is no permalink.
      if (window.location.pathname !== `/labs/${lab}`) return;
      const url = new URL(window.location.href);
      if (replayAt === undefined || from === undefined) url.searchParams.delete('at');
      else url.searchParams.set('at', momentParam(replayAt, from));
      if (url.href !== window.location.href) window.history.replaceState(null, '', url);
    }, URL_SYNC_MS);
    return () => clearTimeout(timer);
  }, [live, lab, replayAt, playing, from, connection]);
}
