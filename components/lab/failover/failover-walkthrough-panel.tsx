'use client';

import Link from 'next/link';
import type { ActionResult } from '@/lib/model/core/action-result';
import type { FailoverAction } from '@/lib/model/failover/failover-walkthrough';
import { controlButton } from '../controls/styles';
import { runFailoverAction } from './failover-actions';
import { useFailoverProgress } from './use-failover-progress';

/**
 * The failover lab's narrated walkthrough in one mode: its steps with a deep link each, the step
 * shown (the deep link's, or the lab's next), and for the trainer the button that runs it (or the
 * steps up to it). Where the lab stands is read from its events, as the live feed delivers them.
 */
export function FailoverWalkthroughPanel(props: {
  mode: 'async' | 'sync';
  initialStep: number | undefined;
  canDrive: boolean;
  busy: boolean;
  notice: string;
  act: (label: string, run: () => Promise<ActionResult<unknown>>) => Promise<void>;
  runUpTo: (from: number, target: number) => Promise<void>;
}) {
  const { mode, initialStep, canDrive, busy } = props;
  const { walkthrough, progress, wordsOf } = useFailoverProgress(mode);
  const shown = Math.min(initialStep ?? progress + 1, walkthrough.length);
  const current = walkthrough[shown - 1];
  const other = mode === 'sync' ? 'async' : 'sync';

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
          <li key={step.title} aria-current={index + 1 === shown ? 'step' : undefined}>
            <Link
              className={index + 1 === shown ? 'font-bold underline' : 'underline'}
              href={`/labs/failover?mode=${mode}&step=${index + 1}`}
            >
              {step.title}
            </Link>
            {index < progress ? ' ✓' : ''}
          </li>
        ))}
      </ol>
      {current ? (
        <div aria-live="polite" className="rounded-md bg-slate-100 p-3 dark:bg-slate-800">
          <h3 className="font-semibold">
            Step {shown}: {current.title}
          </h3>
          <p>{wordsOf(shown - 1).text}</p>
          <p className="text-sm">
            {shown <= progress
              ? 'The lab has done this step.'
              : shown === progress + 1
                ? 'This is the lab’s next step.'
                : `The lab is at step ${progress}: run the steps before this one first.`}
          </p>
        </div>
      ) : null}
      {canDrive && current?.action && shown === progress + 1 ? (
        <button
          type="button"
          className={controlButton}
          disabled={busy}
          onClick={() =>
            current.action && void props.act(current.title, () => runFailoverAction(current.action as FailoverAction))
          }
        >
          Run step {shown}
        </button>
      ) : null}
      {canDrive && shown > progress + 1 ? (
        <button
          type="button"
          className={controlButton}
          disabled={busy}
          onClick={() => void props.runUpTo(progress + 1, shown)}
        >
          Run steps {progress + 1} to {shown}
        </button>
      ) : null}
      <p role="status" className="min-h-6">
        {props.notice}
      </p>
    </section>
  );
}
