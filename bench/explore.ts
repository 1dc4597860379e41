import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { exploreOnDatabase } from '../db/explore';
import { PAUSE_FENCED } from '../lib/labs/traits';
import { exploreLabOf } from '../lib/model/explore/explore-labs';
import type { BenchSizes } from './sizes';
import type { Figure } from './stats';

/*
 * The explorer (issue 35, docs/explore.md): every interleaving of the fenced lab's story at each size,
 * each write run by fl_fenced_write under a savepoint, rolled back. The time to explore the whole space
 * with its state counts beside it (a faster run that explores less is seen), and the writes run a second
 * (on the sessions side by side the explorer uses: docs/explore.md, "Sessions side by side, one search").
 * Beside them, the CPU a write cost: in this process (the search, the checker, the pg client) and in
 * the database's backends (the lab's SQL), which on 2 CPUs bound the writes a second between them.
 */

/** The issue's goals: seconds for the whole space at a size, and the writes a second on the database. */
const GOAL_SECONDS: Record<string, number> = { '2×3': 5, '3×2': 20 };
const GOAL_WRITES_PER_SECOND = 3_000;

/**
 * CPU seconds of the database's sessions that ended: its postmaster's reaped children (`/proc/<pid>/stat`
 * cutime and cstime, in clock ticks of 10 ms). The explorer's sessions end with each exploration.
 */
function endedSessionsCpuSeconds(postmasterPid: number): number {
  const stat = readFileSync(`/proc/${postmasterPid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** `postmasterPid`: the throwaway cluster's, when it runs on this machine (its sessions' CPU is then measured). */
export async function benchExplore(size: BenchSizes['explore'], postmasterPid?: number): Promise<Figure[]> {
  const lab = exploreLabOf(PAUSE_FENCED);
  if ('refusal' in lab) throw new Error(lab.refusal);
  const figures: Figure[] = [];
  let writes = 0;
  let seconds = 0;
  const cpu = process.cpuUsage();
  const sessionsBefore = postmasterPid === undefined ? 0 : endedSessionsCpuSeconds(postmasterPid);
  for (const { holders, writes: perHolder } of size.cases) {
    const explored = await exploreOnDatabase({ lab, bounds: { holders, writes: perHolder } });
    const { counts } = explored.result;
    writes += counts.storageSteps;
    seconds += explored.seconds;
    const key = `${holders}×${perHolder}`;
    const goal = GOAL_SECONDS[key];
    figures.push({
      name: `fenced ${holders} holders × ${perHolder} writes, whole space`,
      value: `${explored.seconds.toFixed(2)} s`,
      goal: goal === undefined ? '-' : `< ${goal} s`,
      met: goal === undefined ? undefined : explored.seconds < goal && counts.broken === 0,
      note: `${explored.sessions} sessions, ${counts.states.toLocaleString('en-US')} states, ${counts.interleavings.toLocaleString('en-US')} interleavings, ${counts.broken} broken, ${counts.storageSteps.toLocaleString('en-US')} writes`,
    });
  }
  const used = process.cpuUsage(cpu);
  // The sessions' ends are reaped by the postmaster a moment after they close.
  if (postmasterPid !== undefined) await sleep(200);
  const sessionsSeconds =
    postmasterPid === undefined ? undefined : endedSessionsCpuSeconds(postmasterPid) - sessionsBefore;
  const msAWrite = (cpuSeconds: number) => (writes > 0 ? ((cpuSeconds * 1000) / writes).toFixed(2) : '-');
  const perSecond = seconds > 0 ? writes / seconds : 0;
  figures.push({
    name: 'writes run on the database a second',
    value: `${Math.round(perSecond).toLocaleString('en-US')}/s`,
    goal: `≥ ${GOAL_WRITES_PER_SECOND.toLocaleString('en-US')}/s`,
    met: perSecond >= GOAL_WRITES_PER_SECOND,
    note: `${writes.toLocaleString('en-US')} writes in ${seconds.toFixed(2)} s`,
  });
  figures.push({
    name: 'CPU a write: this process; the database sessions',
    value: `${msAWrite((used.user + used.system) / 1e6)} ms; ${sessionsSeconds === undefined ? '-' : `${msAWrite(sessionsSeconds)} ms`}`,
    goal: '-',
    met: undefined,
    note: 'with the sessions set up; on 2 CPUs, 3,000 a second needs both under 0.67 ms together',
  });
  return figures;
}
