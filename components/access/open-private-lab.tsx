'use client';

import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { openPrivateLabAction } from '@/app/actions';
import { PAUSE_FENCED } from '@/lib/labs/traits';
import { LABS, type LabId, PRIVATE_LAB_KINDS } from '@/lib/model/lab/lab-kinds';

/** Opens a lab of one's own (own row, workers and history), then goes to it. */
export function OpenPrivateLab({
  initialKind = PAUSE_FENCED,
  walkthrough = false,
}: {
  initialKind?: LabId;
  walkthrough?: boolean;
}) {
  const router = useRouter();
  const [kind, setKind] = useState<LabId>(initialKind);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const id = useId();
  return (
    <form
      className="flex flex-wrap items-end gap-2"
      aria-label="Open a private lab"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        // The server could not be reached: `undefined` is said so below.
        const result = await openPrivateLabAction({ kind }).catch(() => undefined);
        if (result?.ok) {
          router.push(`/labs/${result.data.id}${walkthrough ? '/walkthrough' : ''}`);
          return;
        }
        setBusy(false);
        setError(result ? result.error.message : 'the server could not be reached');
      }}
    >
      <label htmlFor={id} className="grid gap-1 text-sm font-medium">
        Kind of lab
        <select
          id={id}
          value={kind}
          onChange={(e) => setKind(e.target.value as LabId)}
          className="rounded-md border border-slate-300 bg-white px-2 py-1 text-base dark:border-slate-700 dark:bg-slate-900"
        >
          {PRIVATE_LAB_KINDS.map((lab) => (
            <option key={lab} value={lab}>
              {LABS[lab].title}
            </option>
          ))}
        </select>
      </label>
      <button
        type="submit"
        disabled={busy}
        className="rounded-md bg-sky-700 px-3 py-1.5 font-semibold text-white hover:bg-sky-800 disabled:opacity-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600"
      >
        {busy ? 'Opening…' : walkthrough ? 'Take the walkthrough in a private lab' : 'Open a private lab'}
      </button>
      {error ? (
        <p role="alert" className="basis-full text-sm text-rose-800 dark:text-rose-300">
          {error}
        </p>
      ) : null}
    </form>
  );
}
