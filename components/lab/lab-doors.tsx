'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { setRemoteWorkersAction, startAgainAction } from '@/app/actions';

type Props = {
  labId: string;
  /** The trainer: who opens the lab to the room's remote workers and starts its workers again. */
  canDrive: boolean;
  remoteWorkersOpen: boolean;
  /** Set when the idle watch stopped the lab's workers: for how long nobody watched it. */
  idleStop?: { idleMinutes: number; workers: string[] };
};

const BUTTON =
  'rounded-md border border-slate-300 px-3 py-1.5 font-semibold hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-900';

/** A shared lab's doors, as its row says: open to remote workers or not, stopped for being unwatched or not. */
export function LabDoors({ labId, canDrive, remoteWorkersOpen, idleStop }: Props) {
  const router = useRouter();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // The box follows a click at once; the server's answer (or the lab's row, on refresh) has the last word.
  const [open, setOpen] = useState(remoteWorkersOpen);
  useEffect(() => setOpen(remoteWorkersOpen), [remoteWorkersOpen]);
  const run = async (action: () => Promise<{ ok: boolean; error?: { message: string } } | undefined>) => {
    setBusy(true);
    // The server could not be reached: `undefined` is said so below.
    const result = await action().catch(() => undefined);
    setBusy(false);
    if (result?.ok) {
      setError(undefined);
      router.refresh();
      return true;
    }
    setError(result?.error?.message ?? 'the server could not be reached');
    return false;
  };
  return (
    <div className="space-y-2" data-testid="lab-doors">
      {idleStop ? (
        <p role="status" className="font-semibold" data-testid="idle-stop">
          Stopped: nobody watched for {idleStop.idleMinutes} min
          {canDrive ? (
            <>
              {' — '}
              <button
                type="button"
                disabled={busy}
                className={BUTTON}
                onClick={() => run(() => startAgainAction({ lab: labId }))}
              >
                Start again{idleStop.workers.length ? ` (${idleStop.workers.join(', ')})` : ''}
              </button>
            </>
          ) : null}
        </p>
      ) : null}
      {canDrive ? (
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={open}
            disabled={busy}
            data-testid="remote-workers-open"
            onChange={(event) => {
              const wanted = event.currentTarget.checked;
              setOpen(wanted);
              void run(() => setRemoteWorkersAction({ lab: labId, open: wanted })).then((ok) => {
                if (!ok) setOpen(!wanted);
              });
            }}
          />
          Remote workers may join this lab (the room&apos;s worker line; never as A or B)
        </label>
      ) : (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {remoteWorkersOpen
            ? 'Remote workers may join this lab now.'
            : 'This lab takes no remote workers now: the trainer opens it to them.'}
        </p>
      )}
      {error ? (
        <p role="alert" className="text-sm text-rose-800 dark:text-rose-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}
