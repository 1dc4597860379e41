import os from 'node:os';
import { runChaos } from '../lib/chaos/run-chaos';
import { PAUSE_FENCED } from '../lib/labs/traits';
import { stalePerMinute } from '../lib/model/chaos/chaos-tally';
import { sharedLab } from '../lib/model/lab/lab-instance';
import type { BenchSizes } from './sizes';
import type { Figure } from './stats';

/*
 * Aimed chaos (issue 14): how many stale writes a seeded run makes in the fenced lab with five real
 * workers, per minute, and how many the fenced write let through. Goal: at least 100 a minute on a 2-CPU
 * machine, every one rejected. No database crash here (the soak has them: npm run soak).
 */

const STALE_PER_MINUTE_GOAL = 100;

export async function benchChaos(size: BenchSizes['chaos']): Promise<Figure[]> {
  const loadBefore = os.loadavg()[0] ?? 0;
  const report = await runChaos({ lab: sharedLab(PAUSE_FENCED), seed: 42, workers: 5, seconds: size.seconds });
  const t = report.totals;
  const rate = stalePerMinute(t);
  const load = `load ${loadBefore.toFixed(1)} → ${(os.loadavg()[0] ?? 0).toFixed(1)} on ${os.cpus().length} CPUs`;
  return [
    {
      name: 'stale write attempts a minute',
      value: String(rate),
      goal: `≥ ${STALE_PER_MINUTE_GOAL}`,
      met: rate >= STALE_PER_MINUTE_GOAL,
      note: `${t.staleAttempts} in ${(t.elapsedMs / 1000).toFixed(1)} s, 5 workers; ${load}`,
    },
    { name: 'stale writes accepted', value: String(t.staleAccepted), goal: '0', met: t.staleAccepted === 0 },
    {
      name: 'checker violations',
      value: String(report.verdict.violations.length),
      goal: '0',
      met: report.verdict.ok,
    },
  ];
}
