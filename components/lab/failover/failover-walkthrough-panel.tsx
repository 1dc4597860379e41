'use client';

import Link from 'next/link';
import { useEffect, useState } from 'react';
import { Glyph } from '@/components/glyph';
import type { ActionResult } from '@/lib/model/core/action-result';
import type { FailoverAction } from '@/lib/model/failover/failover-walkthrough';
import { controlButton } from '../controls/styles';
import { useShownStepRecorder } from '../walkthrough/use-shown-step-recorder';
import { recordFailoverShownStep, runFailoverAction } from './failover-actions';
import { useFailoverProgress, useFailoverStepFrame, useFollowedStep } from './use-failover-progress';

/**
 * The failover lab's narrated walkthrough in one mode: its steps with a deep link each, the step
 * shown, told from its record as of its moment (every panel beside it shows the lab then), and for
 * the trainer the button that runs the next step (or the steps up to a deep link's). The trainer's
 * page shows the step it ran last, or chose, and records it for the watchers' pages, which show it.
 * Where the lab stands is read from its events, as the live feed delivers them.
 */
export function FailoverWalkthroughPanel(props: {
  mode: 'async' | 'sync';
  initialStep: number | undefined;
  canDrive: boolean;
  busy: boolean;
  notice: string;
  act: (label: string, run: () => Promise<ActionResult<unknown>>) => Promise<boolean>;
  runUpTo: (from: number, target: number) => Promise<boolean>;
}) {
  const { mode, initialStep, canDrive, busy } = props;
  const { walkthrough, progress, reached, wordsOf, reachedBy } = useFailoverProgress(mode);
  const recorder = useShownStepRecorder(recordFailoverShownStep);
  const followed = useFollowedStep(canDrive, progress, reached);
  const [chosen, setChosen] = useState<number | undefined>(initialStep);
  // A deep link followed on this page (the list's links) shows its step.
  useEffect(() => setChosen(initialStep), [initialStep]);
  const shown = Math.min((canDrive ? chosen : initialStep) ?? followed, walkthrough.length);
  const current = walkthrough[shown - 1];
  const upcoming = walkthrough[shown];
  useFailoverStepFrame(reachedBy, walkthrough.length, shown, progress);
  const other = mode === 'sync' ? 'async' : 'sync';
  const words = wordsOf(shown - 1);

  /** The trainer moved to step `n` (from 1): shown here, and recorded for the watchers' pages. */
  const show = (n: number) => {
    setChosen(n);
    recorder.record(n - 1);
  };
  const runTo = async (target: number) => {
    const ran =
      target === progress + 1 && walkthrough[target - 1]?.action
        ? await props.act(walkthrough[target - 1]?.title ?? '', () =>
            runFailoverAction(walkthrough[target - 1]?.action as FailoverAction),
          )
        : await props.runUpTo(progress + 1, target);
    if (ran) show(target);
  };

  return (
    <section aria-labelledby="fo-walkthrough" className="space-y-3 rounded-lg border p-4">
      <h2 id="fo-walkthrough" className="text-xl font-semibold">
        Walkthrough ({mode === 'sync' ? 'synchronous' : 'asynchronous'} replication)
      </h2>
      <p>
        <Link className="underline" href={`/labs/failover?mode=${other}`}>
          The same story with {other === 'sync' ? 'synchronous' : 'asynchronous'} replication
        </Link>
      </p>
      <ol className="list-decimal space-y-1 pl-6">
        {walkthrough.map((step, index) => (
          <li key={step.id} aria-current={index + 1 === shown ? 'step' : undefined}>
            <Link
              className={index + 1 === shown ? 'font-bold underline' : 'underline'}
              href={`/labs/failover?mode=${mode}&step=${index + 1}`}
            >
              {step.title}
            </Link>
            {index < progress ? (
              <>
                {' '}
                <Glyph>✓</Glyph>
                <span className="sr-only">(done)</span>
              </>
            ) : null}
          </li>
        ))}
      </ol>
      {current ? (
        <div aria-live="polite" className="rounded-md bg-slate-100 p-3 dark:bg-slate-800">
          <h3 className="font-semibold">
            Step {shown}: {current.title}
          </h3>
          <p>{words.text}</p>
          <p className="text-sm">
            {words.done
              ? 'The lab has done this step.'
              : shown === progress + 1
                ? 'This is the lab’s next step.'
                : `The lab is at step ${progress}: run the steps before this one first.`}
          </p>
        </div>
      ) : null}
      {canDrive && current?.action && shown === progress + 1 ? (
        <button type="button" className={controlButton} disabled={busy} onClick={() => void runTo(shown)}>
          Run step {shown}
        </button>
      ) : null}
      {canDrive && shown > progress + 1 ? (
        <button type="button" className={controlButton} disabled={busy} onClick={() => void runTo(shown)}>
          Run steps {progress + 1} to {shown}
        </button>
      ) : null}
      {canDrive && shown <= progress && upcoming ? (
        upcoming.action && shown === progress ? (
          <button type="button" className={controlButton} disabled={busy} onClick={() => void runTo(shown + 1)}>
            Run step {shown + 1}
          </button>
        ) : (
          <button type="button" className={controlButton} disabled={busy} onClick={() => show(shown + 1)}>
            Show step {shown + 1}
          </button>
        )
      ) : null}
      <p role="status" className="min-h-6">
        {props.notice}
      </p>
    </section>
  );
}
