'use client';

import { useMemo } from 'react';
import { failoverStepsOf } from '@/lib/model/failover-events';
import { failoverProgress, failoverWalkthrough } from '@/lib/model/failover-walkthrough';
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
    return { progress: !started || told === mode ? failoverProgress(walkthrough, steps) : 0, told };
  }, [events, mode, walkthrough]);
  /** The other mode, when the lab's recorded story was told in it (this walkthrough then starts anew). */
  const otherStory = told !== undefined && told !== mode ? told : undefined;
  return { walkthrough, progress, otherStory };
}
