'use client';

import { useState } from 'react';
import { issueWorkerLineAction } from '@/app/actions';
import { clientFileHref } from '@/lib/model/lab/client-files';

const LINK = 'font-semibold underline';
const BUTTON =
  'rounded-md border border-slate-300 px-3 py-1.5 font-semibold hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-900';

/**
 * How to run a worker from one's own machine in this lab (a private lab's owner, or anyone watching a
 * shared lab while its trainer lets remote workers in): a worker line of this browser's own, a
 * PostgreSQL role with its own password (db/worker-lines.ts), issued on request and shown once. Asked
 * again, the same line gets a new password, and its settings are put back as issued.
 */
export function OwnMachineWorker({ labId }: { labId: string }) {
  const [issued, setIssued] = useState<
    { role: string; command: string; execCommand: string; pythonCommand: string } | undefined
  >();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const issue = async () => {
    setBusy(true);
    // The server could not be reached: `undefined` is said so below.
    const result = await issueWorkerLineAction({ lab: labId }).catch(() => undefined);
    setBusy(false);
    if (result?.ok) {
      setIssued(result.data);
      setError(undefined);
    } else {
      setError(result?.error.message ?? 'the server could not be reached');
    }
  };
  return (
    <details className="rounded-lg border border-slate-300 p-3 dark:border-slate-700" data-testid="own-machine-worker">
      <summary className="cursor-pointer font-semibold">Run a worker from your own machine in this lab</summary>
      <p className="mt-2 text-sm">
        In a checkout of Fencing Lab (after <code>npm ci</code>), or with Python alone (below). Your worker line is
        yours alone: a database role with its own password, which may do what a worker does and nothing else. Keep it to
        yourself; asking again gives it a new password.
      </p>
      <button
        type="button"
        className={`${BUTTON} mt-2`}
        disabled={busy}
        onClick={issue}
        data-testid="issue-worker-line"
      >
        {issued ? 'Get my worker line again (new password)' : 'Get my worker line'}
      </button>
      {error ? (
        <p role="alert" className="mt-2 text-sm font-semibold text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
      {issued ? (
        <div role="status" className="mt-2 space-y-1 text-sm">
          <p>
            Your line is <code>{issued.role}</code>. Run, with your own name:
          </p>
          <pre
            className="overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 dark:bg-slate-900"
            data-testid="worker-line-command"
          >
            <code>{issued.command}</code>
          </pre>
          <p>
            Or your own program as the lane, in any language (the protocol:{' '}
            <a className={LINK} href={clientFileHref('protocol.md')}>
              protocol.md
            </a>
            ):
          </p>
          <pre
            className="overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 dark:bg-slate-900"
            data-testid="worker-line-exec-command"
          >
            <code>{issued.execCommand}</code>
          </pre>
          <p>
            Or with nothing but Python 3 and psycopg (no checkout): save{' '}
            <a className={LINK} href={clientFileHref('runner.py')} download="runner.py" data-testid="save-runner">
              runner.py
            </a>{' '}
            beside your program (a client to start from, twenty lines:{' '}
            <a className={LINK} href={clientFileHref('minimal.py')} download="minimal.py" data-testid="save-minimal">
              minimal.py
            </a>
            ), then run:
          </p>
          <pre
            className="overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 dark:bg-slate-900"
            data-testid="worker-line-python-command"
          >
            <code>{issued.pythonCommand}</code>
          </pre>
        </div>
      ) : null}
    </details>
  );
}
