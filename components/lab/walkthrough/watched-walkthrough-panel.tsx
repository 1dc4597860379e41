'use client';

import type { LabId } from '@/lib/model/lab/lab-kinds';
import { useStepFrame } from './use-step-frame';
import { useStepsReachedBy } from './use-steps-reached-by';
import { useWatchedStep } from './use-watched-step';

/**
 * A watcher's narration on the walkthrough page: the step the trainer shows, as the lab records it,
 * so that it follows the trainer (and comes back to the same step on a reload) without driving anything.
 */
export function WatchedWalkthroughPanel({ lab }: { lab: LabId }) {
  const view = useWatchedStep(lab);
  // The trainer's frame and moment: the panels beside show what the trainer's show.
  useStepFrame(useStepsReachedBy(lab), view.steps, view.step === undefined ? undefined : view.step - 1);
  return (
    <section
      aria-labelledby="walkthrough-heading"
      className="space-y-2 rounded-lg border border-sky-300 bg-sky-50 p-3 dark:border-sky-800 dark:bg-sky-950"
    >
      <p className="text-sm font-medium text-sky-900 dark:text-sky-200">
        {view.step === undefined ? 'The walkthrough' : `Step ${view.step} of ${view.steps}`}
      </p>
      <h2 id="walkthrough-heading" className="text-xl font-bold">
        {view.title}
      </h2>
      <p className="min-h-24 text-lg leading-snug" data-testid="narration">
        {view.text}
      </p>
    </section>
  );
}
