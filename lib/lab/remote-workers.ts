import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  enqueueWorkerCommand,
  findRemoteWorker,
  hasPendingCommand,
  listLiveRemoteWorkers,
  type RemoteCommand,
  type RemoteWorkerRecord,
} from '../../db/remote-workers';
import { FencingError } from '../model/errors';
import type { PausePlan } from '../model/lab-inputs';
import type { LabInstance } from '../model/lab-instance';
import { getSupervisor, type WorkerView } from './supervisor';

/*
 * The server's side of remote workers (lib/worker/remote-main.ts): they are listed beside the
 * supervisor's own, and driven through the database, since the server cannot reach their machine.
 * A command is queued in worker_commands; the worker's listener takes it at once (LISTEN) and
 * reports its new state in its heartbeat row, which is what these functions wait for.
 */

/** Every live feed of a lab asks for its workers each second: one query per lab per second at most. */
const LIST_TTL_MS = 1_000;
/** As long as the supervisor waits for a local worker to say it froze. */
const ACK_TIMEOUT_MS = 3_000;
const STOP_TIMEOUT_MS = 5_000;
const POLL_MS = 100;
const STOP_SETTLE_MS = 300;

type Cached = { at: number; workers: Promise<WorkerView[]> };
type GlobalWithCache = typeof globalThis & { __fencingLabRemoteWorkers?: Map<string, Cached> };

function cache(): Map<string, Cached> {
  const holder = globalThis as GlobalWithCache;
  holder.__fencingLabRemoteWorkers ??= new Map();
  return holder.__fencingLabRemoteWorkers;
}

function viewOf(worker: RemoteWorkerRecord): WorkerView {
  return {
    id: worker.name,
    name: worker.name,
    lab: worker.lab,
    phase: worker.live ? worker.phase : 'stopped',
    alive: worker.live,
    armed: worker.live && worker.armed,
    settings: worker.settings,
    remote: true,
    ...(worker.token === undefined ? {} : { token: worker.token }),
    ...(worker.believedUntil === undefined ? {} : { believedUntil: worker.believedUntil }),
  };
}

/** The lab's live remote workers, at most LIST_TTL_MS old. */
export function listRemoteWorkers(lab: LabInstance): Promise<WorkerView[]> {
  const cached = cache().get(lab.id);
  if (cached && Date.now() - cached.at < LIST_TTL_MS) return cached.workers;
  const workers = listLiveRemoteWorkers(lab.id).then((found) => {
    if (found.some((worker) => worker.live)) getSupervisor().noteRemoteWorkers();
    return found.map(viewOf);
  });
  cache().set(lab.id, { at: Date.now(), workers });
  workers.catch(() => cache().delete(lab.id));
  return workers;
}

/** The lab's workers: the ones this server runs, then the remote ones. */
export async function listLabWorkers(lab: LabInstance): Promise<WorkerView[]> {
  return [...getSupervisor().listWorkers(lab), ...(await listRemoteWorkers(lab))];
}

/** The live remote worker `ref` names, unless it names one of this server's workers (those come first). */
export async function remoteWorkerFor(lab: LabInstance, ref: string): Promise<RemoteWorkerRecord | undefined> {
  if (getSupervisor().hasWorker(lab, ref)) return undefined;
  const found = await findRemoteWorker({ lab: lab.id, name: ref.trim() });
  return found?.live ? found : undefined;
}

/** A local worker may not take the name of a remote one: both would write under it. */
export async function refuseRemoteName(lab: LabInstance, name: string): Promise<void> {
  const found = await findRemoteWorker({ lab: lab.id, name: name.trim() });
  if (found?.live) {
    throw new FencingError('invalid_input', `there is already a worker named ${JSON.stringify(found.name)} (remote)`);
  }
}

export async function pauseRemoteWorker(lab: LabInstance, worker: RemoteWorkerRecord, plan: PausePlan) {
  if (worker.phase === 'paused') throw new FencingError('invalid_input', `${worker.name} is already paused`);
  const seconds = plan.mode === 'until-resumed' ? undefined : plan.seconds;
  if (plan.mode === 'critical-window') {
    await command(lab, worker, 'arm-critical-pause', seconds);
    return waitFor(lab, worker, (w) => w.armed || w.phase === 'paused', ACK_TIMEOUT_MS);
  }
  await command(lab, worker, 'pause-now', seconds);
  return waitFor(lab, worker, (w) => w.phase === 'paused', ACK_TIMEOUT_MS);
}

export async function resumeRemoteWorker(lab: LabInstance, worker: RemoteWorkerRecord) {
  const waiting = await hasPendingCommand({
    lab: lab.id,
    worker: worker.name,
    commands: ['pause-now', 'arm-critical-pause'],
  });
  if (worker.phase !== 'paused' && !worker.armed && !waiting) {
    throw new FencingError('invalid_input', `${worker.name} is not paused`);
  }
  await command(lab, worker, 'resume');
  return waitFor(lab, worker, (w) => w.phase !== 'paused' && !w.armed, ACK_TIMEOUT_MS);
}

/** The worker records its own crash, then SIGKILLs itself. */
export async function crashRemoteWorker(lab: LabInstance, worker: RemoteWorkerRecord) {
  await command(lab, worker, 'crash');
  return waitFor(lab, worker, (w) => !w.live, STOP_TIMEOUT_MS);
}

export function restartRemoteWorker(worker: RemoteWorkerRecord): never {
  throw new FencingError(
    'invalid_input',
    `${worker.name} is a remote worker: a remote worker is restarted on its own machine`,
  );
}

/**
 * Before a reset: the lab's history is about to be cleared, so its remote workers are told to stop
 * (they exit, and say why on their terminal) instead of writing on into the fresh history. Their
 * people start them again. Waits until they have stopped, or have gone silent.
 */
export async function stopRemoteWorkers(lab: LabInstance): Promise<void> {
  const live = await listLiveRemoteWorkers(lab.id);
  await Promise.all(
    live.map(async (worker) => {
      await command(lab, worker, 'stop');
      await waitFor(lab, worker, (w) => !w.live, STOP_TIMEOUT_MS);
    }),
  );
  // The worker's listener marks it stopped before its main thread has read the word: a query that
  // thread had already sent may still land. It lands before the reset this waits for, not after.
  if (live.length > 0) await sleep(STOP_SETTLE_MS);
}

async function command(lab: LabInstance, worker: RemoteWorkerRecord, what: RemoteCommand, seconds?: number) {
  await enqueueWorkerCommand({ lab: lab.id, worker: worker.name, command: what, ...(seconds ? { seconds } : {}) });
}

/** Polls the worker's row until `done` holds or time is up; returns what the row says then. */
async function waitFor(
  lab: LabInstance,
  worker: RemoteWorkerRecord,
  done: (worker: RemoteWorkerRecord) => boolean,
  timeoutMs: number,
): Promise<WorkerView> {
  const deadline = Date.now() + timeoutMs;
  let latest = worker;
  for (;;) {
    latest = (await findRemoteWorker({ lab: lab.id, name: worker.name })) ?? { ...latest, live: false };
    if (done(latest) || Date.now() >= deadline) break;
    await sleep(POLL_MS);
  }
  cache().delete(lab.id);
  return viewOf(latest);
}
