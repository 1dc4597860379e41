'use client';

import { useEffect, useMemo } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import { stepFrame, stepMoments } from '@/lib/model/timeline/timeline-frame';
import { useLabStore } from '../lab-store-provider';

/**
 * Frames the timeline on the shown step's evidence (lib/model/timeline/timeline-frame.ts), and makes
 * the shown step's moment the store's (`stepMoment`): when each step was reached is read from the
 * lab's events with `reachedBy` (how many steps a prefix of them completes, a stable function). While
 * the lab is past the shown step (Back, or a step that completed by itself), every panel shows the lab
 * as of that step's moment; at the latest step they are live and say how long after it. Moving to
 * another step (→, ←, a deep link) moves the view; a zoom or a pan in between lets go of the frame.
 * Returns the shown step's moment (database time), undefined before the lab reached it.
 */
export function useStepFrame(
  reachedBy: (prefix: readonly WireEvent[]) => number,
  count: number,
  index: number | undefined,
): { at: number | undefined; past: boolean } {
  const events = useLabStore((s) => s.events);
  const setFrame = useLabStore((s) => s.setFrame);
  const setStepMoment = useLabStore((s) => s.setStepMoment);
  const moments = useMemo(() => stepMoments(events, reachedBy, count), [events, reachedBy, count]);
  const frame = index === undefined ? undefined : stepFrame(moments, index);
  const from = frame?.from;
  const to = frame?.to;
  const untilNow = frame?.untilNow ?? false;
  useEffect(() => {
    setFrame(from === undefined || to === undefined ? undefined : { from, to, untilNow });
  }, [from, to, untilNow, setFrame]);
  const reachedUpTo = moments.findLastIndex((m) => m !== undefined);
  // Step 1 is the reset: its moment is just before the run's first event (no workers, no history).
  const reachedAt = index === undefined || index > reachedUpTo ? undefined : moments[index];
  const at = reachedAt !== undefined && index === 0 ? reachedAt - 1 : reachedAt;
  // Past it: a later step was reached at a later moment (the last step, done with the step before it, is not "later").
  const past =
    reachedAt !== undefined &&
    index !== undefined &&
    moments.slice(index + 1).some((m) => m !== undefined && m > reachedAt);
  useEffect(() => {
    setStepMoment(at === undefined || index === undefined ? undefined : { step: index + 1, at, past });
  }, [at, past, index, setStepMoment]);
  useEffect(() => () => setStepMoment(undefined), [setStepMoment]);
  return { at, past };
}
