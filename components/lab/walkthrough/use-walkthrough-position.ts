'use client';

import { useMemo } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import type { LabId } from '@/lib/model/lab/lab-kinds';
import { type Facts, type Step, walkthroughFor } from '@/lib/model/walkthrough/walkthrough';
import {
  factsAtStep,
  type WalkthroughPosition,
  walkthroughPosition,
} from '@/lib/model/walkthrough/walkthrough-progress';
import { useLabStore } from '../lab-store-provider';

/**
 * Where the lab is in the walkthrough, read from the events this page holds (the lab's since its
 * last reset); `after` leaves out older ones (a reset this page ran, before the feed said so).
 * Undefined until the feed has delivered the lab's history: until then the page cannot know.
 */
export function useWalkthroughPosition(lab: LabId, after = 0) {
  const steps = useMemo(() => walkthroughFor(lab), [lab]);
  const events = useLabStore((s) => s.events);
  const known = useLabStore((s) => s.connection !== 'connecting');
  const run = useMemo(() => (after ? events.filter((e) => e.id > after) : events), [events, after]);
  const position = useMemo(() => walkthroughPosition(steps, run, lab), [steps, run, lab]);
  return { steps, position: known ? position : undefined, run };
}

/**
 * The facts step `index` is told from: as of its moment while the lab is past it (a step is a moment:
 * its words say what was true then, as the panels beside it show), else everything recorded so far.
 */
export function useFactsOfStep(
  lab: LabId,
  steps: readonly Step[],
  run: readonly WireEvent[],
  position: WalkthroughPosition | undefined,
  index: number | undefined,
): Facts | undefined {
  return useMemo(() => {
    if (position?.kind !== 'at' || index === undefined || index >= position.step) return position?.facts;
    return factsAtStep(steps, run, index, lab);
  }, [lab, steps, run, position, index]);
}
