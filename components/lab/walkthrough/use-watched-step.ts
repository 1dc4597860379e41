'use client';

import { useMemo } from 'react';
import type { LabId } from '@/lib/model/lab/lab-kinds';
import { useLabStore } from '../lab-store-provider';
import { useLabRow } from './use-lab-row';
import { useFactsOfStep, useWalkthroughPosition } from './use-walkthrough-position';
import { type WatchedView, watchedViewOf } from './walkthrough-words';

/**
 * A watcher's walkthrough: the step the trainer shows, which the lab records and its feed's
 * snapshots carry (never the step its events suggest, which may be one ahead of the trainer's
 * words), narrated from the events this page holds.
 */
export function useWatchedStep(lab: LabId): WatchedView {
  const { steps, position, run } = useWalkthroughPosition(lab);
  const recorded = useLabStore((s) => s.snapshot?.walkthroughStep);
  // The trainer's step, told as of its moment when the lab is past it (as the trainer's page does).
  const facts = useFactsOfStep(lab, steps, run, position, recorded);
  // The last step reads the row as the database has it now (the lab's snapshot).
  const row = useLabRow();
  return useMemo(
    () => watchedViewOf(steps, position && facts ? { ...position, facts } : position, recorded, row),
    [steps, position, facts, recorded, row],
  );
}
