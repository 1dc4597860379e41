'use client';

import { Glyph } from '@/components/glyph';
import { useLabStore } from '../lab-store-provider';
import { useViewWorkers } from '../replay/use-replay-view';

// Shorter than the controls' words: the strip is read across a room, one line per worker.
const PHASE: Record<string, { icon: string; words: string }> = {
  starting: { icon: '…', words: 'starting' },
  // Not ⌛: an emoji, which a machine without an emoji font (this one's Chromium) draws as an empty box.
  acquiring: { icon: '○', words: 'waiting for the lease' },
  holding: { icon: '●', words: 'holds the lease' },
  // Its lease ran out by the database's clock; it has not been told (frozen, or its clock slow).
  expired: { icon: '◌', words: 'believes it holds the lease; it ran out' },
  paused: { icon: '‖', words: 'paused (frozen)' },
  reconnecting: { icon: '↻', words: 'reconnecting' },
  // A person's own program (npm run worker -- --exec): its runner does not know whether it holds the lease.
  running: { icon: '▶', words: 'runs its own client' },
  stopped: { icon: '■', words: 'stopped' },
};

const MAX_KEYED_WORKERS = 8;

/** The lab's workers in one row; the selected one (1–8, or a click) is the one P and R act on. */
export function WorkerStrip() {
  // As at the step's moment when the lab is past it, else live (replay/use-replay-view.ts).
  const workers = useViewWorkers();
  const selected = useLabStore((s) => s.selectedWorker);
  const select = useLabStore((s) => s.selectWorker);
  return (
    <section aria-labelledby="worker-strip-heading" className="flex flex-wrap items-center gap-2">
      <h2 id="worker-strip-heading" className="text-xl font-semibold">
        Workers
      </h2>
      {workers.length === 0 ? <p className="text-xl text-slate-600 dark:text-slate-400">none running</p> : null}
      <ul className="flex flex-wrap gap-2">
        {workers.map((worker, i) => {
          const phase = PHASE[worker.phase] ?? { icon: '?', words: worker.phase };
          const isSelected = worker.id === selected;
          return (
            <li key={worker.id}>
              <button
                type="button"
                aria-pressed={isSelected}
                aria-keyshortcuts={i < MAX_KEYED_WORKERS ? String(i + 1) : undefined}
                onClick={() => select(worker.id)}
                className={`flex items-baseline gap-2 rounded-lg border-2 px-2.5 py-1 text-lg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 ${
                  isSelected
                    ? 'border-sky-700 bg-sky-100 dark:border-sky-400 dark:bg-sky-900'
                    : 'border-slate-300 dark:border-slate-700'
                }`}
              >
                {i < MAX_KEYED_WORKERS ? (
                  // aria-keyshortcuts says it to a screen reader; the button's name starts with the worker.
                  <span aria-hidden="true" className="font-mono text-base text-slate-600 dark:text-slate-300">
                    {i + 1}
                  </span>
                ) : null}
                <span className="text-2xl font-bold">{worker.name}</span>{' '}
                {worker.remote ? (
                  <span className="rounded bg-violet-100 px-1.5 text-sm font-semibold text-violet-900 dark:bg-violet-900 dark:text-violet-100">
                    remote
                  </span>
                ) : null}{' '}
                <span data-testid={`strip-${worker.name}-phase`}>
                  <Glyph>{phase.icon}</Glyph> {phase.words}
                  {worker.armed ? ', will freeze before its next write' : ''}
                  {worker.token !== undefined && worker.alive ? ` · token ${worker.token}` : ''}
                </span>
                {isSelected ? <span className="sr-only"> (selected)</span> : null}
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
