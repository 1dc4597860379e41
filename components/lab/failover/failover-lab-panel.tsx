'use client';

import Link from 'next/link';
import { useCallback, useEffect, useState } from 'react';
import {
  cutReplicationAction,
  grantFailoverLeaseAction,
  healReplicationAction,
  killFailoverPrimaryAction,
  promoteFailoverStandbyAction,
  resetFailoverLabAction,
  startFailoverPairAction,
  viewFailoverLabAction,
  writeFailoverRowAction,
} from '@/app/actions';
import type { ActionResult } from '@/lib/model/action-result';
import { checkFailover } from '@/lib/model/failover-checker';
import { FAILOVER_HOLDERS } from '@/lib/model/failover-inputs';
import { describeFailoverStep } from '@/lib/model/failover-story-lines';
import { type FailoverAction, failoverProgress, failoverWalkthrough } from '@/lib/model/failover-walkthrough';
import { controlButton } from '../controls/styles';
import { downloadText } from '../export/download';
import { FailoverServers, type FailoverView } from './failover-servers';

const POLL_MS = 1_000;

function runAction(action: FailoverAction): Promise<ActionResult<unknown>> {
  switch (action.kind) {
    case 'start':
      return startFailoverPairAction({ mode: action.mode });
    case 'grant':
      return grantFailoverLeaseAction({ holder: action.holder });
    case 'write':
      return writeFailoverRowAction({ holder: action.holder });
    case 'cut':
      return cutReplicationAction({});
    case 'heal':
      return healReplicationAction({});
    case 'kill':
      return killFailoverPrimaryAction({});
    case 'promote':
      return promoteFailoverStandbyAction({});
  }
}

export function FailoverLabPanel({
  mode,
  initialStep,
  canDrive,
}: {
  mode: 'async' | 'sync';
  initialStep: number | undefined;
  canDrive: boolean;
}) {
  const [view, setView] = useState<FailoverView | undefined>();
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const walkthrough = failoverWalkthrough(mode);

  const refresh = useCallback(async () => {
    const result = await viewFailoverLabAction();
    if (result.ok) setView(result.data);
  }, []);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  const act = async (label: string, run: () => Promise<ActionResult<unknown>>) => {
    setBusy(true);
    setNotice(`${label}…`);
    try {
      const result = await run();
      if (result.ok) {
        const waiting = (result.data as { waiting?: boolean } | undefined)?.waiting;
        setNotice(waiting ? `${label}: waiting (the COMMIT is not acknowledged yet)` : `${label}: done`);
      } else {
        setNotice(`${label}: ${result.error.message}`);
      }
    } finally {
      setBusy(false);
      await refresh();
    }
  };

  /** A deep link's button: the walkthrough's steps from the lab's next one up to `target`, one after another. */
  const runUpTo = async (from: number, target: number) => {
    setBusy(true);
    try {
      for (let n = from; n <= target; n++) {
        const step = walkthrough[n - 1];
        if (!step?.action) break;
        setNotice(`Step ${n}: ${step.title}…`);
        const result = await runAction(step.action);
        await refresh();
        if (!result.ok) {
          setNotice(`Step ${n}: ${result.error.message}`);
          return;
        }
      }
      setNotice(`Steps ${from} to ${target}: done`);
    } finally {
      setBusy(false);
    }
  };

  const steps = view?.steps ?? [];
  const progress = view?.mode === mode || steps.length === 0 ? failoverProgress(walkthrough, steps) : 0;
  const shown = Math.min(initialStep ?? progress + 1, walkthrough.length);
  const current = walkthrough[shown - 1];
  const violations = checkFailover(steps);
  const other = mode === 'sync' ? 'async' : 'sync';

  return (
    <div className="grid gap-4 lg:grid-cols-2">
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
            <p>{current.narration}</p>
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
            onClick={() => current.action && void act(current.title, () => runAction(current.action as FailoverAction))}
          >
            Run step {shown}
          </button>
        ) : null}
        {canDrive && view && shown > progress + 1 ? (
          <button
            type="button"
            className={controlButton}
            disabled={busy}
            onClick={() => void runUpTo(progress + 1, shown)}
          >
            Run steps {progress + 1} to {shown}
          </button>
        ) : null}
        <p role="status" className="min-h-6">
          {notice}
        </p>
      </section>

      <section aria-labelledby="fo-servers" className="space-y-3 rounded-lg border p-4">
        <h2 id="fo-servers" className="text-xl font-semibold">
          The servers, as they answer now
        </h2>
        <FailoverServers view={view} />
      </section>

      {canDrive ? (
        <section aria-labelledby="fo-controls" className="space-y-2 rounded-lg border p-4">
          <h2 id="fo-controls" className="text-xl font-semibold">
            Free play
          </h2>
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() =>
                void act('Start the pair (asynchronous)', () => startFailoverPairAction({ mode: 'async' }))
              }
            >
              Start the pair (asynchronous)
            </button>
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void act('Start the pair (synchronous)', () => startFailoverPairAction({ mode: 'sync' }))}
            >
              Start the pair (synchronous)
            </button>
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void act('Cut replication', () => cutReplicationAction({}))}
            >
              Cut replication
            </button>
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void act('Heal replication', () => healReplicationAction({}))}
            >
              Heal replication
            </button>
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void act('Kill the primary', () => killFailoverPrimaryAction({}))}
            >
              Kill the primary (SIGKILL)
            </button>
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void act('Promote the standby', () => promoteFailoverStandbyAction({}))}
            >
              Promote the standby
            </button>
            <button
              type="button"
              className={controlButton}
              disabled={busy}
              onClick={() => void act('Reset the lab', () => resetFailoverLabAction({}))}
            >
              Reset the lab (stops the pair)
            </button>
          </div>
          <div className="flex flex-wrap gap-2">
            {FAILOVER_HOLDERS.map((holder) => (
              <span key={holder} className="flex gap-1">
                <button
                  type="button"
                  className={controlButton}
                  disabled={busy}
                  onClick={() => void act(`Grant ${holder} the lock`, () => grantFailoverLeaseAction({ holder }))}
                >
                  Grant {holder}
                </button>
                <button
                  type="button"
                  className={controlButton}
                  disabled={busy}
                  onClick={() => void act(`${holder} writes`, () => writeFailoverRowAction({ holder }))}
                >
                  {holder} writes
                </button>
              </span>
            ))}
          </div>
        </section>
      ) : (
        <p className="rounded-lg border p-4">Watching: only the trainer drives the failover lab.</p>
      )}

      <section aria-labelledby="fo-history" className="space-y-2 rounded-lg border p-4">
        <h2 id="fo-history" className="text-xl font-semibold">
          History (from the app’s database)
        </h2>
        <ol className="list-decimal space-y-1 pl-6" aria-label="Failover history">
          {steps.map((step, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the history only grows; its order is its identity
            <li key={index}>{describeFailoverStep(step)}</li>
          ))}
        </ol>
        <button
          type="button"
          className={controlButton}
          disabled={steps.length === 0}
          onClick={() =>
            downloadText(
              JSON.stringify({ lab: 'failover', run: view?.run, mode: view?.mode, steps, violations }, null, 2),
              'application/json',
              `fencing-lab-failover-${new Date().toISOString().replaceAll(':', '-')}.json`,
            )
          }
        >
          Export the history as JSON
        </button>
        <h3 className="font-semibold">The checker’s verdict</h3>
        {violations.length === 0 ? (
          <p role="status">No violation in {steps.length} steps.</p>
        ) : (
          <ul aria-label="Violations" className="list-disc space-y-1 pl-6">
            {violations.map((violation) => (
              <li key={violation.message}>
                ⚠ <strong>{violation.kind}</strong>: {violation.message}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
