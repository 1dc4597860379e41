'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { closePrivateLabAction } from '@/app/actions';

/** Ends one's private lab now: its workers stop, its history stays for replay and export. */
export function ClosePrivateLab({ lab }: { lab: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <div className="space-y-1">
      <button
        type="button"
        disabled={busy}
        className="rounded-md border border-slate-300 px-3 py-1.5 font-semibold hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-900"
        onClick={async () => {
          setBusy(true);
          // The server could not be reached: `undefined` is said so below.
          const result = await closePrivateLabAction({ lab }).catch(() => undefined);
          setBusy(false);
          if (result?.ok) router.refresh();
          else setError(result ? result.error.message : 'the server could not be reached');
        }}
      >
        Close this lab
      </button>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Stops its workers and frees its place; its history stays here for replay and export.
      </p>
      {error ? (
        <p role="alert" className="text-sm text-rose-800 dark:text-rose-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}
