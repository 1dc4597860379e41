'use client';

import Link from 'next/link';
import { useEffect, useId, useState } from 'react';
import { lastGuardAction, submitGuardAction } from '@/app/actions';
import type { GuardResult } from '@/lib/model/guard-inputs';
import { useLastVerdicts } from './last-verdict';

const STARTER = 'UPDATE guarded_row SET value = $1, last_token = $2\nWHERE id = $3';

/**
 * The your-guard lab's editor: the trainee writes the UPDATE that protects the row, and the lab
 * attacks it with real workers (a few seconds). The verdict is announced, with a link that opens
 * its counterexample on the replay's timeline. It opens with the trainee's last name, statement and
 * verdict in this lab, as guard_attempts kept them (the starter only before the first attempt).
 */
export function GuardEditor({ labId }: { labId: string }) {
  const [name, setName] = useState('');
  const [statement, setStatement] = useState(STARTER);
  const [loaded, setLoaded] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<GuardResult | undefined>();
  const [error, setError] = useState<string | undefined>();
  const setLastVerdict = useLastVerdicts((s) => s.set);
  useEffect(() => {
    let current = true;
    void lastGuardAction({ lab: labId })
      .then((answer) => {
        if (!current || !answer.ok) return;
        setLastVerdict(labId, answer.data.standing);
        const last = answer.data.last;
        if (!last) return;
        setName(last.name);
        setStatement(last.statement);
        setResult(last.result);
      })
      .catch(() => undefined)
      .finally(() => current && setLoaded(true));
    return () => {
      current = false;
    };
  }, [labId, setLastVerdict]);
  const ids = { name: useId(), statement: useId(), help: useId() };
  return (
    <form
      aria-label="Your guard"
      className="space-y-2 rounded-lg border border-slate-300 p-3 dark:border-slate-700"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(undefined);
        const answer = await submitGuardAction({ lab: labId, name, statement }).catch(() => undefined);
        setBusy(false);
        if (answer?.ok) {
          setResult(answer.data);
          if (answer.data.outcome === 'passed' || answer.data.outcome === 'violation')
            setLastVerdict(labId, answer.data.outcome);
        } else setError(answer ? answer.error.message : 'the server could not be reached');
      }}
    >
      <h2 className="text-lg font-semibold">Your guard</h2>
      <p id={ids.help} className="text-sm">
        One <code>UPDATE guarded_row</code> with <code>$1</code> the value, <code>$2</code> the token and{' '}
        <code>$3</code> the row id (columns <code>id</code>, <code>value</code>, <code>last_token</code>). It runs as a
        role that can touch only this table; then two workers attack it: A writes with token 9, freezes, B takes over
        with 10, A wakes.
      </p>
      <label htmlFor={ids.name} className="grid gap-1 text-sm font-medium">
        Your name (on the class wall)
        <input
          id={ids.name}
          value={name}
          maxLength={40}
          required
          disabled={!loaded}
          onChange={(e) => setName(e.target.value)}
          className="rounded-md border border-slate-300 bg-white px-2 py-1 text-base dark:border-slate-700 dark:bg-slate-900"
        />
      </label>
      <label htmlFor={ids.statement} className="grid gap-1 text-sm font-medium">
        The statement
        <textarea
          id={ids.statement}
          aria-describedby={ids.help}
          value={statement}
          maxLength={2000}
          rows={4}
          spellCheck={false}
          disabled={!loaded}
          onChange={(e) => setStatement(e.target.value)}
          className="rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-sm dark:border-slate-700 dark:bg-slate-900"
        />
      </label>
      <button
        type="submit"
        disabled={busy || !loaded}
        className="rounded-md bg-sky-700 px-3 py-1.5 font-semibold text-white hover:bg-sky-800 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600"
      >
        {busy ? 'Attacking your guard…' : 'Attack my guard'}
      </button>
      <div role="status" aria-live="polite" data-testid="guard-verdict" className="space-y-1 text-base">
        {result ? <Verdict result={result} /> : null}
      </div>
      {error ? (
        <p role="alert" className="text-sm text-rose-800 dark:text-rose-300">
          {error}
        </p>
      ) : null}
      <p className="text-sm">
        <Link className="underline" href="/wall">
          Your attempts on the class wall
        </Link>
      </p>
    </form>
  );
}

function Verdict({ result }: { result: GuardResult }) {
  const tone =
    result.outcome === 'passed' ? 'text-emerald-800 dark:text-emerald-300' : 'text-rose-800 dark:text-rose-300';
  const word = {
    queued: 'In line',
    passed: '✓ Passed',
    violation: '✗ Broken',
    refused: '✗ Refused',
    failed: '✗ Not finished',
  }[result.outcome];
  return (
    <>
      <p className={`font-semibold ${tone}`}>
        {word}: {result.headline}
      </p>
      {result.detail ? <p className="text-sm">{result.detail}</p> : null}
      <p className="text-sm">
        Attempt {result.attemptId}, {result.outcome === 'refused' ? 'the statement refused' : 'the statement that ran'}:
      </p>
      <pre data-testid="guard-attempt-statement" className="whitespace-pre-wrap break-words font-mono text-sm">
        {result.statement}
      </pre>
      {result.hasCounterexample ? (
        <p>
          <Link className="font-semibold underline" href={`/replay?attempt=${result.attemptId}`}>
            Open the counterexample on the timeline (attempt {result.attemptId})
          </Link>
        </p>
      ) : null}
    </>
  );
}
