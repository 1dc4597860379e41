'use client';

import Link from 'next/link';
import { useCallback, useEffect, useId, useState } from 'react';
import { lastGuardAction, submitGuardAction } from '@/app/actions';
import type { GuardResult } from '@/lib/model/guard/guard-inputs';
import { useWaitAnnouncement, Verdict, Waiting } from './guard-verdict';
import { useLastVerdicts } from './last-verdict';
import { useGuardWait } from './use-guard-wait';

const STARTER = 'UPDATE guarded_row SET value = $1, last_token = $2\nWHERE id = $3';

/**
 * The your-guard lab's editor: the trainee writes the UPDATE that protects the row; a submitted guard
 * joins the room's line of attacks (real workers, a few seconds each), and the editor shows its place
 * and estimate until the verdict is in. The place (when it changes) and the verdict are announced,
 * with a link that opens its counterexample on the replay's timeline. It opens with the trainee's last
 * name, statement and verdict in this lab, as guard_attempts kept them (the starter only before the
 * first attempt), and a guard still in line is waited for again.
 */
export function GuardEditor({ labId }: { labId: string }) {
  const [name, setName] = useState('');
  const [statement, setStatement] = useState(STARTER);
  const [loaded, setLoaded] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<GuardResult | undefined>();
  const [error, setError] = useState<string | undefined>();
  const setLastVerdict = useLastVerdicts((s) => s.set);
  const show = useCallback(
    (next: GuardResult) => {
      setResult(next);
      // Only an attack's verdict changes the row's guard: a refusal or an unfinished attack installs nothing new.
      if (next.outcome === 'passed' || next.outcome === 'violation') setLastVerdict(labId, next.outcome);
    },
    [labId, setLastVerdict],
  );
  const { reconnecting } = useGuardWait(labId, result, show, (message) => {
    setResult(undefined);
    setError(message);
  });
  const waiting = result?.outcome === 'queued' ? result : undefined;
  const announced = useWaitAnnouncement(result);
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
      // The last guard could not be read: the editor opens empty, as for a first guard.
      .catch(() => undefined)
      .finally(() => current && setLoaded(true));
    return () => {
      current = false;
    };
  }, [labId, setLastVerdict]);
  const ids = { name: useId(), statement: useId(), help: useId(), reason: useId() };
  return (
    <form
      aria-label="Your guard"
      className="space-y-2 rounded-lg border border-slate-300 p-3 dark:border-slate-700"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(undefined);
        // The server could not be reached: `undefined` is said so below.
        const answer = await submitGuardAction({ lab: labId, name, statement }).catch(() => undefined);
        setBusy(false);
        if (answer?.ok) show(answer.data);
        else setError(answer ? answer.error.message : 'the server could not be reached');
      }}
    >
      <h2 className="text-lg font-semibold">Your guard</h2>
      <p id={ids.help} className="text-sm">
        One <code>UPDATE guarded_row</code> with <code>$1</code> the value, <code>$2</code> the token and{' '}
        <code>$3</code> the row id (columns <code>id</code>, <code>value</code>, <code>last_token</code>). It runs as a
        role that can touch only this table; then two workers attack it: A writes with token 9, freezes, B takes over
        with 10, A wakes. Your guard joins the room's line: you see your place, then the verdict.
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
        disabled={busy || !loaded || waiting !== undefined}
        aria-describedby={waiting ? ids.reason : undefined}
        className="rounded-md bg-sky-700 px-3 py-1.5 font-semibold text-white hover:bg-sky-800 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600"
      >
        {busy ? 'Sending your guard…' : 'Attack my guard'}
      </button>
      {waiting ? <Waiting result={waiting} reconnecting={reconnecting} reasonId={ids.reason} /> : null}
      <div role="status" aria-live="polite" data-testid="guard-verdict" className="space-y-1 text-base">
        {waiting ? <p className="sr-only">{announced}</p> : result ? <Verdict result={result} /> : null}
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
