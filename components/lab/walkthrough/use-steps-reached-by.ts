'use client';

import { useMemo } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import type { LabId } from '@/lib/model/lab/lab-kinds';
import { factsFrom, walkthroughFor } from '@/lib/model/walkthrough/walkthrough';
import { stepReachedBy } from '@/lib/model/walkthrough/walkthrough-progress';

/** How many of the lab's walkthrough steps a prefix of its events completes (for the step's frame and moment). */
export function useStepsReachedBy(lab: LabId) {
  return useMemo(() => {
    const steps = walkthroughFor(lab);
    return (prefix: readonly WireEvent[]) => stepReachedBy(steps, factsFrom(prefix, lab));
  }, [lab]);
}
