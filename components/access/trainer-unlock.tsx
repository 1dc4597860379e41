'use client';

import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { lockTrainerAction, unlockTrainerAction } from '@/app/actions';

const button =
  'rounded-md bg-sky-700 px-3 py-1.5 font-semibold text-white hover:bg-sky-800 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600';

/** The trainer key, entered once: this browser then drives the shared labs (a cookie remembers it). */
export function TrainerUnlock() {
  const router = useRouter();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const id = useId();
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      aria-label="Drive with the trainer key"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        // The server could not be reached: `undefined` is said so below.
        const result = await unlockTrainerAction({ key }).catch(() => undefined);
        setBusy(false);
        if (result?.ok) {
          setError(undefined);
          router.refresh();
        } else {
          setError(result ? result.error.message : 'the server could not be reached');
        }
      }}
    >
      <label htmlFor={id} className="grid gap-1 text-sm font-medium">
        Trainer key
        <input
          id={id}
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          className="w-56 rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-base dark:border-slate-700 dark:bg-slate-900"
        />
      </label>
      <button type="submit" className={button} disabled={busy || key.trim() === ''}>
        Drive the shared labs
      </button>
      {error ? (
        <p id={`${id}-error`} role="alert" className="basis-full text-sm text-rose-800 dark:text-rose-300">
          {error}
        </p>
      ) : null}
    </form>
  );
}

/** For the trainer: give the controls back (this browser only watches the shared labs again). */
export function TrainerLock() {
  const router = useRouter();
  return (
    <button
      type="button"
      className="text-sm font-semibold underline"
      onClick={async () => {
        // The server could not be reached: the refresh shows the session as it still is.
        await lockTrainerAction().catch(() => undefined);
        router.refresh();
      }}
    >
      Stop driving (forget the trainer key here)
    </button>
  );
}
