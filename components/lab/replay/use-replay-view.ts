'use client';

import { useMemo, useRef } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import { type ReplayBounds, replayBounds } from '@/lib/model/history/replay';
import { stableEventsUntil } from '@/lib/model/history/replay-view';
import { useLabStore } from '../lab-store-provider';
import { useDbNow } from '../use-db-now';

/*
 * What the lab's views show, live or replayed: derived here from the store's log and its replay
 * moment, never stored, so that the timeline, the tables and the verdict cannot disagree.
 */

/** The first and last moments of the whole history held (undefined while it is empty). */
export function useReplayBounds(): ReplayBounds | undefined {
  const events = useLabStore((s) => s.events);
  return useMemo(() => replayBounds(events), [events]);
}

/** The events shown: all of them live, those up to the moment while replaying (the same array while none is added). */
export function useViewEvents(): readonly WireEvent[] {
  const events = useLabStore((s) => s.events);
  const replayAt = useLabStore((s) => s.replayAt);
  const previous = useRef<readonly WireEvent[] | undefined>(undefined);
  return useMemo(() => {
    if (replayAt === undefined) return events;
    const shown = stableEventsUntil(previous.current, events, replayAt);
    previous.current = shown;
    return shown;
  }, [events, replayAt]);
}

/** "Now" as the views draw it: the replay moment, or the database's clock ticking every `tickMs`. */
export function useViewNow(tickMs = 100): number {
  const replayAt = useLabStore((s) => s.replayAt);
  const dbNow = useDbNow(tickMs);
  return replayAt ?? dbNow;
}
