'use client';

import type { FirstDifference, RunStep } from '@/lib/model/history/history-diff';

const button =
  'rounded-md border border-amber-600 bg-amber-50 px-3 py-1.5 font-semibold hover:bg-amber-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 disabled:opacity-50 dark:border-amber-400 dark:bg-amber-950 dark:hover:bg-amber-900';

function StepLine({ name, step, of }: { name: string; step: RunStep | undefined; of: FirstDifference['of'] }) {
  return (
    <li>
      <strong>{name}:</strong>{' '}
      {step
        ? `${step.words}${step.repeats > 1 ? ` (${step.repeats} times in a row)` : ''}`
        : `no such ${of} (the run ended there, or has not got there yet)`}
    </li>
  );
}

/** The first difference in words, announced to screen readers as it appears or changes, and a way to go to it. */
export function FirstDifferencePanel({
  sentence,
  difference,
  names,
  onShow,
  shown,
}: {
  sentence: string | undefined;
  difference: FirstDifference | undefined;
  names: { a: string; b: string };
  onShow: () => void;
  /** What the button did, announced: which marks it selected, or that a step has none. */
  shown: string | undefined;
}) {
  return (
    <section
      aria-labelledby="first-difference-heading"
      className="space-y-2 rounded-lg border-2 border-amber-500 p-3 dark:border-amber-400"
    >
      <h2 id="first-difference-heading" className="text-lg font-semibold">
        Where the runs first differ
      </h2>
      <p role="status" data-testid="first-difference" className="text-base">
        {sentence ?? 'Choose two histories to compare.'}
      </p>
      {difference ? (
        <>
          <ul className="list-disc pl-5">
            <StepLine name={names.a} step={difference.a} of={difference.of} />
            <StepLine name={names.b} step={difference.b} of={difference.of} />
          </ul>
          <button type="button" className={button} onClick={onShow}>
            Show the first difference
          </button>
          <p role="status" data-testid="first-difference-shown" className="text-sm">
            {shown ?? ''}
          </p>
        </>
      ) : null}
    </section>
  );
}
