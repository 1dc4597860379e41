import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { readLabRow } from '../../db/lab-rows';
import { readLease } from '../../db/leases';
import { type ChaosAction, LEASE_HOLDER, planChaos } from '../model/chaos-plan';
import { checkHistory, type Verdict } from '../model/checker';
import type { LabInstance } from '../model/lab-instance';
import { toWire } from '../model/wire';
import { getSupervisor } from '../supervisor/supervisor';

const WORKER_NAMES = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];
const CHAOS_WORKER = { leaseTtlMs: 1_500, renewEveryMs: 500, writeEveryMs: 200 } as const;
const PROGRESS_EVERY_MS = 5_000;

export type ChaosProgress = {
  elapsedMs: number;
  accepted: number;
  rejected: number;
  grants: number;
  pauses: number;
  crashes: number;
};

export type ChaosReport = {
  lab: string;
  seed: number;
  workers: number;
  seconds: number;
  planned: number;
  skipped: Array<{ action: ChaosAction; reason: string }>;
  totals: ChaosProgress;
  finalRow?: { value: string; lastToken: number };
  verdict: Verdict;
};

export type ChaosRequest = {
  lab: LabInstance;
  seed: number;
  workers: number;
  seconds: number;
  /** Crashes the database (kill -9) and starts it again; only where this process owns the database. */
  crashDatabase?: () => Promise<void>;
  onProgress?: (progress: ChaosProgress) => void;
  onAction?: (action: ChaosAction, outcome: string) => void;
};

/**
 * A seeded chaos run with real workers: random freezes (some past the lease, some in the critical
 * window), crashes and restarts, optionally a database crash; then the checker's verdict on
 * everything the lab recorded, and the row as it ended.
 */
export async function runChaos(request: ChaosRequest): Promise<ChaosReport> {
  const { lab, seed, seconds } = request;
  const supervisor = getSupervisor();
  const names = WORKER_NAMES.slice(0, request.workers);
  const plan = planChaos({
    seed,
    workers: names,
    seconds,
    leaseTtlMs: CHAOS_WORKER.leaseTtlMs,
    dbCrash: !!request.crashDatabase,
  });
  const skipped: ChaosReport['skipped'] = [];
  // The lease holder frozen in its critical window is where the damage is done: no later action
  // (a crash, another pause) may take that worker before it has woken and written.
  const struck = new Map<string, number>();
  await supervisor.resetLab(lab);
  try {
    for (const name of names) await supervisor.startWorker(lab, { name, ...CHAOS_WORKER });
  } catch (error) {
    // Not all could start (a limit, say): none of them is left running unattended.
    await supervisor.stopLab(lab);
    throw error;
  }

  const started = Date.now();
  const progress = async (): Promise<ChaosProgress> =>
    tally(await listEvents({ lab: lab.id }).catch(() => []), Date.now() - started);
  const ticker = setInterval(() => {
    void progress().then((p) => request.onProgress?.(p));
  }, PROGRESS_EVERY_MS);
  try {
    for (const action of plan) {
      const wait = started + action.at - Date.now();
      if (wait > 0) await sleep(wait);
      const outcome = await apply(lab, action, struck, request.crashDatabase).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        skipped.push({ action, reason });
        return `skipped: ${reason}`;
      });
      request.onAction?.(action, outcome);
    }
    const rest = started + seconds * 1000 - Date.now();
    if (rest > 0) await sleep(rest);
  } finally {
    clearInterval(ticker);
    await supervisor.stopLab(lab);
  }

  const events = (await listEvents({ lab: lab.id })).map(toWire);
  const row = await readLabRow(lab);
  const finalRow = row ? { value: row.value, lastToken: row.lastToken } : undefined;
  return {
    lab: lab.id,
    seed,
    workers: names.length,
    seconds,
    planned: plan.length,
    skipped,
    totals: tally(events, Date.now() - started),
    ...(finalRow ? { finalRow } : {}),
    verdict: checkHistory(events, finalRow),
  };
}

/** How long after a struck holder wakes its stale write is left to land before the worker is fair game again. */
const STRIKE_SETTLE_MS = 1_000;

async function apply(
  lab: LabInstance,
  action: ChaosAction,
  struck: Map<string, number>,
  crashDatabase?: () => Promise<void>,
): Promise<string> {
  const supervisor = getSupervisor();
  const spare = (worker: string) => {
    if ((struck.get(worker) ?? 0) > Date.now()) {
      throw new Error(`${worker} was frozen as the lease holder and has not written since`);
    }
  };
  switch (action.kind) {
    case 'pause': {
      // A strike at the holder takes whoever runs and holds the lease now (currentHolder), a worker
      // struck before included once it has woken and taken the lease again; the rest spare it.
      const worker = action.worker === LEASE_HOLDER ? await currentHolder(lab) : action.worker;
      if (action.worker !== LEASE_HOLDER) spare(worker);
      await supervisor.pause(lab, worker, {
        mode: action.criticalWindow ? 'critical-window' : 'for',
        seconds: action.ms / 1000,
      });
      if (action.worker === LEASE_HOLDER) struck.set(worker, Date.now() + action.ms + STRIKE_SETTLE_MS);
      return `${worker}${action.worker === LEASE_HOLDER ? ' (the holder)' : ''} frozen for ${action.ms} ms${action.criticalWindow ? ' before its next write' : ''}`;
    }
    case 'crash':
      spare(action.worker);
      await supervisor.crash(lab, action.worker);
      return `${action.worker} crashed (SIGKILL)`;
    case 'restart':
      spare(action.worker);
      await supervisor.restart(lab, action.worker);
      return `${action.worker} restarted`;
    case 'db-crash': {
      if (!crashDatabase) throw new Error('this process does not own the database');
      await crashDatabase();
      // Workers reconnect by themselves; any that died meanwhile is brought back.
      const dead = (await supervisor.listWorkers(lab)).filter((worker) => !worker.alive);
      for (const worker of dead) await supervisor.restart(lab, worker.id);
      return `the database was crashed (kill -9) and started again; the workers reconnect${dead.length ? ` (${dead.length} restarted)` : ''}`;
    }
  }
}

/** How long a strike at the holder waits for one: a crashed holder's lease must run out first. */
const HOLDER_WAIT_MS = 2 * CHAOS_WORKER.leaseTtlMs;
const HOLDER_POLL_MS = 50;

/**
 * The worker that holds the lease and runs: the lease row may still name a holder that crashed or
 * froze (its lease not yet run out), and striking that one would freeze nobody in the window.
 */
async function currentHolder(lab: LabInstance): Promise<string> {
  const deadline = Date.now() + HOLDER_WAIT_MS;
  for (;;) {
    const lease = await readLease(lab.resource);
    const workers = await getSupervisor().listWorkers(lab);
    const holder = lease && workers.find((w) => w.name === lease.holder && w.alive && w.phase === 'holding');
    if (holder && !holder.armed) return holder.name;
    if (Date.now() >= deadline) throw new Error('no running worker holds the lease right now');
    await sleep(HOLDER_POLL_MS);
  }
}

export function tally(events: ReadonlyArray<{ kind: string }>, elapsedMs: number): ChaosProgress {
  const count = (kind: string) => events.filter((e) => e.kind === kind).length;
  return {
    elapsedMs,
    accepted: count('write_accepted'),
    rejected: count('write_rejected'),
    grants: count('lease_acquired'),
    pauses: count('pause_started'),
    crashes: count('worker_crashed'),
  };
}
