'use client';

import type { LabId } from '@/lib/model/lab-kinds';
import { useLabRow } from './use-lab-row';
import { useWalkthroughPosition } from './use-walkthrough-position';

/**
 * A watcher's narration on the walkthrough page: the step the lab is at, read from its events, so
 * that it follows the trainer (and comes back to the same step on a reload) without driving anything.
 */
export function WatchedWalkthroughPanel({ lab }: { lab: LabId }) {
  const { steps, position } = useWalkthroughPosition(lab);
  const row = useLabRow();
  const index = position?.kind === 'at' ? position.step : undefined;
  const step = index === undefined ? undefined : steps[index];
  return (
    <section
      aria-labelledby="walkthrough-heading"
      className="space-y-2 rounded-lg border border-sky-300 bg-sky-50 p-3 dark:border-sky-800 dark:bg-sky-950"
    >
      <p className="text-sm font-medium text-sky-900 dark:text-sky-200">
        {index === undefined ? 'The walkthrough' : `Step ${index + 1} of ${steps.length}`}
      </p>
      <h2 id="walkthrough-heading" className="text-xl font-bold">
        {step?.title ?? 'Waiting for the trainer'}
      </h2>
      <p className="min-h-24 text-lg leading-snug" data-testid="narration">
        {position === undefined
          ? 'Finding out where the lab is…'
          : position.kind === 'off-script'
            ? `The lab is not following the walkthrough now (${position.why}): the narration starts when the trainer begins it.`
            : (step?.narrate(position.facts, row) ?? '')}
      </p>
    </section>
  );
}
