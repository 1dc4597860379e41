'use client';

import type { LabSnapshot } from '@/lib/model/core/wire';
import { useLabStore } from '../lab-store-provider';

const PHASE_WORDS: Record<string, string> = {
  starting: 'starting',
  acquiring: 'waiting for the lease',
  holding: 'holds the lease',
  paused: 'frozen',
  reconnecting: 'reconnecting to the database',
  // A person's own program (npm run worker -- --exec): its runner does not know whether it holds the lease.
  running: 'runs its own client',
  stopped: 'stopped',
};

/** The lab's workers as a single-choice list: the commands act on the selected one. */
export function WorkerList({ workers }: { workers: LabSnapshot['workers'] }) {
  const selected = useLabStore((s) => s.selectedWorker);
  const select = useLabStore((s) => s.selectWorker);
  if (workers.length === 0) {
    return <p className="text-slate-600 dark:text-slate-400">No workers yet.</p>;
  }
  return (
    <fieldset>
      <legend className="mb-1 text-sm font-medium">Workers (the commands act on the selected one)</legend>
      <div className="flex flex-wrap gap-2">
        {workers.map((worker) => (
          <label
            key={worker.id}
            className={`flex cursor-pointer items-center gap-2 rounded-md border px-3 py-1.5 ${
              worker.id === selected
                ? 'border-sky-600 bg-sky-50 dark:bg-sky-950'
                : 'border-slate-300 dark:border-slate-700'
            }`}
          >
            <input
              type="radio"
              name="worker"
              value={worker.id}
              checked={worker.id === selected}
              onChange={() => select(worker.id)}
            />
            <span className="font-bold">{worker.name}</span>
            {worker.remote ? (
              <span className="rounded bg-slate-200 px-1.5 text-xs dark:bg-slate-800" title="runs on another machine">
                remote
              </span>
            ) : null}
            <span className="text-sm text-slate-700 dark:text-slate-300" data-testid={`worker-${worker.name}-phase`}>
              {PHASE_WORDS[worker.phase] ?? worker.phase}
              {worker.armed ? ', will freeze before its next write' : ''}
              {worker.token !== undefined && worker.alive ? ` · token ${worker.token}` : ''}
            </span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
