'use client';

import { useMemo } from 'react';
import type { LabId } from '@/lib/model/lab/lab-kinds';
import { walkthroughFor } from '@/lib/model/walkthrough/walkthrough';
import { walkthroughPosition } from '@/lib/model/walkthrough/walkthrough-progress';
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
  const position = useMemo(
    () => walkthroughPosition(steps, after ? events.filter((e) => e.id > after) : events, lab),
    [steps, events, after, lab],
  );
  return { steps, position: known ? position : undefined };
}
