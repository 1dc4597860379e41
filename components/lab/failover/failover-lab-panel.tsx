'use client';

import Link from 'next/link';
import { useCallback, useEffect, useState } from 'react';
import {
  cutReplicationAction,
  grantFailoverLeaseAction,
  healReplicationAction,
  killFailoverPrimaryAction,
  promoteFailoverStandbyAction,
  startFailoverPairAction,
  viewFailoverLabAction,
  writeFailoverRowAction,
} from '@/app/actions';
import type { ActionResult } from '@/lib/model/action-result';
import { type FailoverAction, failoverProgress, failoverWalkthrough } from '@/lib/model/failover-walkthrough';
import { controlButton } from '../controls/styles';
import { FailoverControls } from './failover-controls';
import { FailoverHistory } from './failover-history';
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
        <FailoverControls busy={busy} act={act} />
      ) : (
        <p className="rounded-lg border p-4">Watching: only the trainer drives the failover lab.</p>
      )}

      <FailoverHistory run={view?.run} mode={view?.mode} steps={steps} />
    </div>
  );
}
