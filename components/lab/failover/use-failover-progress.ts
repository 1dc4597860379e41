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
  const progress = useMemo(() => {
    const steps = failoverStepsOf(events);
    const started = steps.find((step) => step.kind === 'pair_started');
    return !started || started.mode === mode ? failoverProgress(walkthrough, steps) : 0;
  }, [events, mode, walkthrough]);
  return { walkthrough, progress };
}
