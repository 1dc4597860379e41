'use client';

import { useState } from 'react';
import { startChaosAction } from '@/app/actions';
import { CHAOS_LIMITS } from '@/lib/model/lab/lab-input-limits';
import { useLabStore } from '../lab-store-provider';
import { NumberField } from './number-field';
import { controlButton } from './styles';

/** A seeded chaos run from the browser: it resets the lab, runs, and the checker judges it live. */
export function ChaosPanel() {
  const lab = useLabStore((s) => s.lab);
  const chaos = useLabStore((s) => s.snapshot?.chaos);
  const notify = useLabStore((s) => s.notify);
  const [seed, setSeed] = useState<number>(CHAOS_LIMITS.seed.default);
  const [workers, setWorkers] = useState<number>(CHAOS_LIMITS.workers.default);
  const [seconds, setSeconds] = useState<number>(CHAOS_LIMITS.seconds.default);

  const start = async () => {
    // The server could not be reached: `undefined` is said so below.
    const result = await startChaosAction({ lab, seed, workers, seconds }).catch(() => undefined);
    if (!result) return notify('error', 'Chaos: the server could not be reached');
    if (!result.ok) return notify('error', `Chaos: ${result.error.message}`);
    notify('ok', `Chaos run started: seed ${seed}, ${workers} workers, ${seconds} s.`);
  };
  const left = chaos?.running ? Math.max(0, Math.ceil((chaos.endsAt - Date.now()) / 1000)) : 0;

  return (
    <details className="rounded-md border border-slate-200 p-3 dark:border-slate-800">
      <summary className="cursor-pointer font-semibold">Chaos run</summary>
      <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
        Resets the lab, starts the workers on a short lease, then aims at the critical window, from the seed: it freezes
        each lease holder just before its write for longer than its lease, ends leases early without telling the holder,
        and crashes and restarts workers. The checker above judges everything that happens.
      </p>
      <form
        className="mt-2 flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          void start();
        }}
      >
        <NumberField
          label="Seed"
          value={seed}
          onChange={setSeed}
          min={CHAOS_LIMITS.seed.min}
          max={CHAOS_LIMITS.seed.max}
        />
        <NumberField
          label="Workers"
          value={workers}
          onChange={setWorkers}
          min={CHAOS_LIMITS.workers.min}
          max={CHAOS_LIMITS.workers.max}
        />
        <NumberField
          label="Seconds"
          value={seconds}
          onChange={setSeconds}
          min={CHAOS_LIMITS.seconds.min}
          max={CHAOS_LIMITS.seconds.max}
        />
        <button type="submit" className={controlButton} disabled={chaos?.running}>
          Run chaos
        </button>
      </form>
      <p role="status" className="mt-2 text-base">
        {chaos?.running
          ? `Running: seed ${chaos.seed}, ${chaos.workers} workers, about ${left} s left.`
          : chaos?.result
            ? `Last run (seed ${chaos.seed}): ${chaos.result.staleAttempts} stale write attempts (${chaos.result.stalePerMinute} a minute), ${chaos.result.staleAccepted} accepted; ${chaos.result.accepted} writes accepted, ${chaos.result.ok ? 'no violation' : `${chaos.result.violations} violation${chaos.result.violations === 1 ? '' : 's'}`}.`
            : chaos?.failure
              ? `Last run failed: ${chaos.failure}.`
              : ''}
      </p>
    </details>
  );
}
