'use client';

import { useEffect, useMemo } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import { stepFrame, stepMoments } from '@/lib/model/timeline/timeline-frame';
import { useLabStore } from '../lab-store-provider';

/**
 * Frames the timeline on the shown step's evidence (lib/model/timeline/timeline-frame.ts): when each step was
 * reached is read from the lab's events with `reachedBy` (how many steps a prefix of them completes,
 * a stable function), and the shown step's stretch is handed to the timeline. Moving to another
 * step (→, ←, a deep link) moves the view; a zoom or a pan in between lets go of it until then.
 */
export function useStepFrame(
  reachedBy: (prefix: readonly WireEvent[]) => number,
  count: number,
  index: number | undefined,
): void {
  const events = useLabStore((s) => s.events);
  const setFrame = useLabStore((s) => s.setFrame);
  const moments = useMemo(() => stepMoments(events, reachedBy, count), [events, reachedBy, count]);
  const frame = index === undefined ? undefined : stepFrame(moments, index);
  const from = frame?.from;
  const to = frame?.to;
  const untilNow = frame?.untilNow ?? false;
  useEffect(() => {
    setFrame(from === undefined || to === undefined ? undefined : { from, to, untilNow });
  }, [from, to, untilNow, setFrame]);
}
