import type { Run } from './job-queue-setup';
import type { BenchSizes } from './sizes';
import { type Figure, percentile } from './stats';

/**
 * The job-queue benchmark's figures (bench/job-queue.ts), per library measured: graphile-worker alone
 * since issue 37 (pg-boss's column of issue 24 is kept in bench/README.md).
 */

export type LibResult = {
  lib: 'graphile-worker';
  schema: string;
  appInstalls: string;
  appRuns: string;
  workerRole: string;
  idle: number;
  burst: { runs: Run[]; gaps: Array<{ consumer: string; started_at: Date; done_at: Date | null }> };
  crash: {
    victims: Array<{ n: number; restart_ms: number | null; done_ms: number | null }>;
    runs: Run[];
    unlockMs: number | null;
  };
};

const CONCURRENCY = 2;
const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)}` : '—');
const spread = (values: number[]) =>
  `${ms(percentile(values, 50))} / ${ms(percentile(values, 95))} / ${ms(Math.max(...values))} ms`;

/** Pairs started in the other order than they were enqueued, and the furthest a job moved in line. */
function fairness(runs: Run[]): { inversions: number; moved: number } {
  const started = runs.filter((r) => r.started_at).sort((a, b) => +(a.started_at as Date) - +(b.started_at as Date));
  let inversions = 0;
  let moved = 0;
  started.forEach((run, i) => {
    for (let j = i + 1; j < started.length; j++) if ((started[j] as Run).n < run.n) inversions++;
    moved = Math.max(moved, Math.abs(i - runs.findIndex((r) => r.n === run.n)));
  });
  return { inversions, moved };
}

/** How long a consumer's free slot stayed empty while jobs waited: its k-th start after its (k-2)-th completion. */
function slotGaps(gaps: LibResult['burst']['gaps']): number[] {
  const out: number[] = [];
  for (const consumer of new Set(gaps.map((g) => g.consumer))) {
    const mine = gaps.filter((g) => g.consumer === consumer);
    const starts = mine.map((g) => +g.started_at).sort((a, b) => a - b);
    const dones = mine.flatMap((g) => (g.done_at ? [+g.done_at] : [])).sort((a, b) => a - b);
    for (let k = CONCURRENCY; k < starts.length; k++)
      out.push((starts[k] as number) - (dones[k - CONCURRENCY] as number));
  }
  return out;
}

function summarize(r: LibResult) {
  const { runs } = r.burst;
  const perConsumer = new Map<string, number>();
  for (const run of runs) if (run.consumer) perConsumer.set(run.consumer, (perConsumer.get(run.consumer) ?? 0) + 1);
  const all = [...runs, ...r.crash.runs];
  const restarts = r.crash.victims.map((v) => v.restart_ms ?? Number.POSITIVE_INFINITY);
  return {
    start: spread(runs.map((x) => x.start_ms)),
    done: spread(runs.map((x) => x.done_ms ?? Number.POSITIVE_INFINITY)),
    gaps: slotGaps(r.burst.gaps),
    perConsumer: [...perConsumer].map(([c, n]) => `${c} ${n}`).join(', '),
    fairness: fairness(runs),
    notOnce: all.filter((x) => x.completions !== 1).length,
    twice: all.filter((x) => x.completions > 1).length,
    never: r.crash.runs.filter((x) => x.completions === 0).length,
    restartMax: Math.max(...restarts),
    restarts,
    dones: r.crash.victims.map((v) => v.done_ms ?? Number.POSITIVE_INFINITY),
  };
}

export function jobQueueFigures(results: LibResult[], size: BenchSizes['jobQueue']): Figure[] {
  return results.flatMap((r) => {
    const s = summarize(r);
    const name = (what: string) => `${r.lib}: ${what}`;
    return [
      { name: name('enqueue → start p50/p95/max'), value: s.start, goal: '—', met: undefined, note: s.perConsumer },
      { name: name('enqueue → done p50/p95/max'), value: s.done, goal: '—', met: undefined },
      {
        name: name('free slot idle while jobs wait, p50/max'),
        value: `${ms(percentile(s.gaps, 50))} / ${ms(Math.max(...s.gaps))} ms`,
        goal: '≤ 1000 ms',
        met: Math.max(...s.gaps) <= 1_000,
      },
      {
        name: name('start order: inversions, furthest moved'),
        value: `${s.fairness.inversions}, ${s.fairness.moved}`,
        goal: 'few',
        met: undefined,
        note: `${size.jobs} jobs, ${2 * CONCURRENCY} slots`,
      },
      { name: name('jobs not completed exactly once'), value: String(s.notOnce), goal: '0', met: s.notOnce === 0 },
      {
        name: name('kill -9 → restarted elsewhere, max'),
        value: `${ms(s.restartMax)} ms`,
        goal: '≤ 10000 ms',
        met: s.restartMax <= 10_000,
        note: `each: ${s.restarts.map(ms).join(', ')}; done ${s.dones.map(ms).join(', ')} ms`,
      },
      {
        name: name('crash: never done / done twice'),
        value: `${s.never} / ${s.twice}`,
        goal: '0 / 0',
        met: s.never === 0 && s.twice === 0,
        note: `bound ${size.crashBoundMs / 1000} s`,
      },
      { name: name('transactions/s, idle'), value: r.idle.toFixed(1), goal: '—', met: undefined },
    ];
  });
}

export function printJobQueueTable(results: LibResult[], size: BenchSizes['jobQueue']): void {
  const rows: Array<[string, ...string[]]> = [['', ...results.map((r) => r.lib)]];
  const add = (label: string, f: (r: LibResult, s: ReturnType<typeof summarize>) => string) =>
    rows.push([label, ...results.map((r) => f(r, summarize(r)))]);
  add('enqueue → start p50/p95/max', (_, s) => s.start);
  add('enqueue → done p50/p95/max', (_, s) => s.done);
  add('free slot idle p50/max', (_, s) => `${ms(percentile(s.gaps, 50))} / ${ms(Math.max(...s.gaps))} ms`);
  add('jobs per consumer', (_, s) => s.perConsumer);
  add('inversions, furthest moved', (_, s) => `${s.fairness.inversions}, ${s.fairness.moved}`);
  add('not completed exactly once', (_, s) => String(s.notOnce));
  add('kill → restarted (each)', (_, s) => `${s.restarts.map(ms).join(', ')} ms`);
  add('kill → done (each)', (_, s) => `${s.dones.map(ms).join(', ')} ms`);
  add('kill → peer unlocked', (r) => (r.crash.unlockMs === null ? '—' : `${ms(r.crash.unlockMs)} ms`));
  add('crash: never / twice', (_, s) => `${s.never} / ${s.twice}`);
  add('transactions/s idle', (r) => r.idle.toFixed(1));
  add('app role installs it', (r) => r.appInstalls.slice(0, 60));
  add('app role runs it', (r) => r.appRuns.slice(0, 60));
  add('worker role', (r) => r.workerRole.slice(0, 60));
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  console.log(
    `\njob-queue: ${size.jobs} jobs of ${size.jobMs} ms, 2 consumers × ${CONCURRENCY}; crash: ${size.crashJobs} × ${size.crashJobMs} ms`,
  );
  for (const row of rows) console.log(`  ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')}`);
  for (const r of results) console.log(`  ${r.lib}: ${r.schema}`);
}
