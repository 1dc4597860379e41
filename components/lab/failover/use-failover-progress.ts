'use client';

import { useCallback, useMemo } from 'react';
import { failoverStepsOf } from '@/lib/model/failover-events';
import type { FailoverStep } from '@/lib/model/failover-steps';
import { type FailoverWalkthroughStep, failoverProgress, failoverWalkthrough } from '@/lib/model/failover-walkthrough';
import type { WireEvent } from '@/lib/model/wire';
import { useLabStore } from '../lab-store-provider';

/**
 * The failover walkthrough in one mode, and how many of its steps the lab has done, read from the
 * lab's events as the live feed delivers them (a story told in the other mode counts as none).
 */
export function useFailoverProgress(mode: 'async' | 'sync') {
  const walkthrough = useMemo(() => failoverWalkthrough(mode), [mode]);
  const events = useLabStore((s) => s.events);
  const { progress, told } = useMemo(() => {
    const steps = failoverStepsOf(events);
    const started = steps.find((step) => step.kind === 'pair_started');
    const told = started?.kind === 'pair_started' ? started.mode : undefined;
    return { progress: reachedIn(walkthrough, mode, steps), told };
  }, [events, mode, walkthrough]);
  // How many steps a prefix of the events completes: when each step happened, for the timeline's frame.
  const reachedBy = useCallback(
    (prefix: readonly WireEvent[]) => reachedIn(walkthrough, mode, failoverStepsOf(prefix)),
    [walkthrough, mode],
  );
  /** The other mode, when the lab's recorded story was told in it (this walkthrough then starts anew). */
  const otherStory = told !== undefined && told !== mode ? told : undefined;
  return { walkthrough, progress, otherStory, reachedBy };
}

function reachedIn(walkthrough: FailoverWalkthroughStep[], mode: 'async' | 'sync', steps: FailoverStep[]): number {
  const started = steps.find((step) => step.kind === 'pair_started');
  return !started || (started.kind === 'pair_started' && started.mode === mode)
    ? failoverProgress(walkthrough, steps)
    : 0;
}
