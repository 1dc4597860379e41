'use client';

import { useEffect, useMemo } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import { stepFrame, stepMomentEvents } from '@/lib/model/timeline/timeline-frame';
import { useLabStore } from '../lab-store-provider';

/**
 * Frames the timeline on the shown step's evidence (lib/model/timeline/timeline-frame.ts), and makes
 * the shown step's moment the store's (`stepMoment`): when each step was reached is read from the
 * lab's events with `reachedBy` (how many steps a prefix of them completes, a stable function). While
 * the lab is past the shown step (Back, or a step that completed by itself), every panel shows the lab
 * as of that step's moment; at the latest step they are live and say how long after it. Moving to
 * another step (→, ←, a deep link) moves the view; a zoom or a pan in between lets go of the frame.
 * Returns the shown step's moment (database time), undefined before the lab reached it. `run`: the
 * events of this run, when the page knows better than the store (a reset it ran, before the feed said so).
 */
export function useStepFrame(
  reachedBy: (prefix: readonly WireEvent[]) => number,
  count: number,
  index: number | undefined,
  run?: readonly WireEvent[],
): { at: number | undefined; past: boolean } {
  const all = useLabStore((s) => s.events);
  const events = run ?? all;
  const setFrame = useLabStore((s) => s.setFrame);
  const setStepMoment = useLabStore((s) => s.setStepMoment);
  const reachedAt = useMemo(() => stepMomentEvents(events, reachedBy, count), [events, reachedBy, count]);
  const moments = useMemo(() => reachedAt.map((e) => e?.at), [reachedAt]);
  const frame = index === undefined ? undefined : stepFrame(moments, index);
  const from = frame?.from;
  const to = frame?.to;
  const untilNow = frame?.untilNow ?? false;
  useEffect(() => {
    setFrame(from === undefined || to === undefined ? undefined : { from, to, untilNow });
  }, [from, to, untilNow, setFrame]);
  const reachedUpTo = moments.findLastIndex((m) => m !== undefined);
  // Step 1 is the reset: its moment is just before the run's first event (no workers, no history).
  const event = index === undefined || index > reachedUpTo ? undefined : reachedAt[index];
  const at = event !== undefined && index === 0 ? event.at - 1 : event?.at;
  // The panels keep the events up to the one that reached the step, by id (not all of its millisecond).
  const upToId = event !== undefined && index === 0 ? event.id - 1 : event?.id;
  // Past it: a later step was reached by a later event (the last step, done with the step before it, is not "later").
  const past =
    event !== undefined &&
    index !== undefined &&
    reachedAt.slice(index + 1).some((e) => e !== undefined && e.id > event.id);
  useEffect(() => {
    setStepMoment(
      at === undefined || index === undefined || upToId === undefined
        ? undefined
        : { step: index + 1, at, upToId, past },
    );
  }, [at, upToId, past, index, setStepMoment]);
  useEffect(() => () => setStepMoment(undefined), [setStepMoment]);
  return { at, past };
}
