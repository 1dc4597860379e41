'use client';

import { useMemo } from 'react';
import { failoverStepsOf } from '@/lib/model/failover/failover-events';
import { failoverProgress, failoverStepWords, failoverWalkthrough } from '@/lib/model/failover/failover-walkthrough';
import { useLabStore } from '../lab-store-provider';

/**
 * The failover walkthrough in one mode, and how many of its steps the lab has done, read from the
 * lab's events as the live feed delivers them (a story told in the other mode counts as none).
 */
export function useFailoverProgress(mode: 'async' | 'sync') {
  const walkthrough = useMemo(() => failoverWalkthrough(mode), [mode]);
  const events = useLabStore((s) => s.events);
  const { progress, told, history } = useMemo(() => {
    const steps = failoverStepsOf(events);
    const started = steps.find((step) => step.kind === 'pair_started');
    const told = started?.kind === 'pair_started' ? started.mode : undefined;
    // The story told in the other mode is none of this walkthrough's.
    const history = !started || told === mode ? steps : [];
    return { progress: failoverProgress(walkthrough, history), told, history };
  }, [events, mode, walkthrough]);
  /** The other mode, when the lab's recorded story was told in it (this walkthrough then starts anew). */
  const otherStory = told !== undefined && told !== mode ? told : undefined;
  /** Step `index`'s words (from 0): read from the lab's record once done, else what it will do. */
  const wordsOf = (index: number) => failoverStepWords(walkthrough, history, index);
  return { walkthrough, progress, otherStory, wordsOf };
}
