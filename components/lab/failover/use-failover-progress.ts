'use client';

import { useCallback, useMemo } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import {
  failoverProgress,
  failoverReached,
  failoverRun,
  failoverStepWords,
  failoverWalkthrough,
} from '@/lib/model/failover/failover-walkthrough';
import { useLabStore } from '../lab-store-provider';
import { useStepFrame } from '../walkthrough/use-step-frame';

/**
 * The failover walkthrough in one mode, and how many of its steps the lab has done, read from the
 * lab's events as the live feed delivers them (a story told in the other mode counts as none).
 */
export function useFailoverProgress(mode: 'async' | 'sync') {
  const walkthrough = useMemo(() => failoverWalkthrough(mode), [mode]);
  const events = useLabStore((s) => s.events);
  const run = useMemo(() => failoverRun(events, mode), [events, mode]);
  const progress = useMemo(() => failoverProgress(walkthrough, run), [walkthrough, run]);
  /** The last step (from 0) the lab has reached: the verdict once every action has run. */
  const reached = useMemo(() => failoverReached(walkthrough, run), [walkthrough, run]);
  const started = events.find((e) => e.kind === 'pair_started');
  const told: 'async' | 'sync' | undefined = started ? (started.detail.mode === 'sync' ? 'sync' : 'async') : undefined;
  /** The other mode, when the lab's recorded story was told in it (this walkthrough then starts anew). */
  const otherStory = told !== undefined && told !== mode ? told : undefined;
  /** Step `index`'s words (from 0): read from the lab's record, as of the step's moment, once done; else what it will do. */
  const wordsOf = useCallback((index: number) => failoverStepWords(walkthrough, run, index), [walkthrough, run]);
  /** How many steps a prefix of the lab's events reaches: for the step's frame and moment, as every lab's. */
  const reachedBy = useCallback(
    (prefix: readonly WireEvent[]) => failoverReached(walkthrough, failoverRun(prefix, mode)),
    [walkthrough, mode],
  );
  return { walkthrough, progress, reached, otherStory, wordsOf, reachedBy };
}

/**
 * The step a page shows when nobody chose one (from 1): for the trainer, the last step the lab has
 * done (→ runs the next); for a watcher, the step the trainer shows, as the lab records it, never
 * past what the lab has reached (the step's words need its record).
 */
export function useFollowedStep(canDrive: boolean, progress: number, reached: number): number {
  const recorded = useLabStore((s) => s.snapshot?.walkthroughStep);
  const latest = Math.max(progress, 1);
  if (canDrive || recorded === undefined) return latest;
  return Math.max(1, Math.min(recorded, progress === 0 ? 0 : reached) + 1);
}

/** Every panel beside the failover narration shows the lab as of step `shown`'s moment (from 1), as every lab's. */
export function useFailoverStepFrame(
  reachedBy: (prefix: readonly WireEvent[]) => number,
  steps: number,
  shown: number,
  progress: number,
) {
  // Before the lab has done step 1 (a new story) there is no moment to show: the panels are live.
  useStepFrame(reachedBy, steps, progress === 0 ? undefined : shown - 1);
}
