import 'server-only';
import { randomBytes } from 'node:crypto';
import { appendEvent } from '../../db/events';
import { getPool } from '../../db/pool';
import { registerLocalWorker } from '../../db/remote-workers';
import { FencingError, isFencingError } from '../model/errors';
import type { NewEvent } from '../model/events';
import { MAX_WORKERS_PER_LAB, type PausePlan, type WorkerSettings } from '../model/lab-inputs';
import { type LabInstance, labTitle } from '../model/lab-instance';
import { type WorkerCounts, workerBudgetRefusal } from '../model/lab-limits';
import type { WorkerMessage } from '../worker/protocol';
import { ExpirySweeper } from './expiry-sweeper';
import { resetLabData } from './lab-reset';
import { localWorkerUrl } from './local-worker-url';
import { thisServerRun } from './orphaned-workers';
import { PendingRecords } from './pending-records';
import { WorkerProcess } from './worker-process';

const PAUSE_ACK_TIMEOUT_MS = 3_000;
const REMOTE_SWEEP_GRACE_MS = 5_000;

type Worker = {
  id: string;
  lab: LabInstance;
  settings: WorkerSettings;
  process: WorkerProcess;
  /** When a timed pause ends the supervisor resumes the worker. */
  resumeTimer?: NodeJS.Timeout;
  /** How long each kind of pause lasts once it strikes; kept apart so that one never takes the other's. */
  pending: { now?: PauseLength; criticalWindow?: PauseLength };
  /** The last message the worker sent that says it failed. */
  failure?: string;
  /** The run of the lab it joined: what it records after a reset of the lab is refused. */
  generation: number;
};

type PauseLength = number | 'until-resumed';

type Joined = { generation: number; instance: string };

/**
 * A worker this server forks joins its lab as any worker does, through the server (db/remote-workers.ts
 * registerLocalWorker), which hands it the instance it presents to every worker function.
 */
async function joinAsLocalWorker(lab: LabInstance, settings: WorkerSettings): Promise<Joined> {
  const instance = randomBytes(16).toString('hex');
  const generation = await registerLocalWorker({ lab: lab.id, name: settings.name, instance, settings });
  return { generation, instance };
}

/** What the UI and the server actions may know of a worker: no process id. */
export type WorkerView = {
  id: string;
  name: string;
  lab: string;
  phase: string;
  alive: boolean;
  token?: number;
  believedUntil?: string;
  armed: boolean;
  settings: WorkerSettings;
  failure?: string;
  /** A worker on another machine (lib/lab/remote-workers.ts), known by its name. */
  remote?: boolean;
};

/**
 * Owns every worker process of every lab in this server process. One instance per process, kept
 * on globalThis (see getSupervisor): Next loads modules more than once.
 */
export class LabSupervisor {
  /** By lab id: the labs this server has run workers in. */
  private readonly labs = new Map<string, Map<string, Worker>>();
  private readonly instances = new Map<string, LabInstance>();
  private readonly counters = new Map<string, number>();
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Private labs closed while this server ran: a start already on its way must not land in one. */
  private readonly closed = new Set<string>();
  /** Workers taken out of their lab and being killed: processes still, until they exit. */
  private readonly exiting = new Set<Worker>();
  /** Events the database could not take when they happened, written once it is back. */
  private readonly pendingRecords = new PendingRecords();
  /** When a live remote worker was last seen in a lab someone watches (lib/lab/remote-workers.ts). */
  private remoteSeenAt = 0;
  private readonly sweeper = new ExpirySweeper(
    () =>
      Date.now() - this.remoteSeenAt < REMOTE_SWEEP_GRACE_MS ||
      [...this.labs.values()].some((workers) => [...workers.values()].some((w) => w.process.alive)),
  );

  /**
   * Remote workers run elsewhere, but their lease expiries are recorded here like any other: a
   * frozen remote holder cannot say its lease ran out either. Kept sweeping while they are seen.
   */
  noteRemoteWorkers(): void {
    this.remoteSeenAt = Date.now();
    this.sweeper.ensureRunning();
  }

  /**
   * One command at a time per lab: a double-clicked Restart, or a reset racing a start, must not
   * leave a process the supervisor has lost track of.
   */
  private serially<T>(lab: LabInstance, command: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(lab.id) ?? Promise.resolve();
    const next = previous.then(command, command);
    this.queues.set(
      lab.id,
      next.catch(() => undefined),
    );
    return next;
  }

  listWorkers(lab: LabInstance): WorkerView[] {
    return [...this.workersOf(lab).values()].map(view);
  }

  /** Whether `ref` names one of this server's workers in the lab (else it may be a remote one). */
  hasWorker(lab: LabInstance, ref: string): boolean {
    const wanted = ref.trim().toLowerCase();
    const workers = this.workersOf(lab);
    return workers.has(wanted) || [...workers.values()].some((w) => w.settings.name.toLowerCase() === wanted);
  }

  startWorker(lab: LabInstance, settings: WorkerSettings): Promise<WorkerView> {
    return this.serially(lab, async () => {
      this.refuseIfClosed(lab);
      const workers = this.workersOf(lab);
      if (workers.size >= MAX_WORKERS_PER_LAB) {
        throw new FencingError('invalid_input', `a lab runs at most ${MAX_WORKERS_PER_LAB} workers`);
      }
      if ([...workers.values()].some((w) => w.settings.name.toLowerCase() === settings.name.toLowerCase())) {
        throw new FencingError('invalid_input', `there is already a worker named ${JSON.stringify(settings.name)}`);
      }
      const id = `w${(this.counters.get(lab.id) ?? 0) + 1}`;
      const { generation, instance } = await joinAsLocalWorker(lab, settings);
      const spawned = this.spawnWithinBudget(lab, id, settings, { generation, instance });
      const worker: Worker = { id, lab, settings, process: spawned, pending: {}, generation };
      this.counters.set(lab.id, (this.counters.get(lab.id) ?? 0) + 1);
      workers.set(id, worker);
      await this.record(worker, 'worker_started');
      this.sweeper.ensureRunning();
      return view(worker);
    });
  }

  pause(lab: LabInstance, ref: string, plan: PausePlan): Promise<WorkerView> {
    return this.serially(lab, async () => {
      const worker = this.find(lab, ref, { alive: true });
      if (worker.process.frozen) throw new FencingError('invalid_input', `${worker.settings.name} is already paused`);
      const lasts: PauseLength =
        plan.mode === 'until-resumed' || plan.seconds === undefined ? 'until-resumed' : plan.seconds * 1000;
      if (plan.mode === 'critical-window') {
        worker.pending.criticalWindow = lasts;
        worker.process.send({ type: 'arm-critical-pause' });
        return view(worker);
      }
      worker.pending.now = lasts;
      worker.process.send({ type: 'pause-now' });
      await worker.process.waitUntilPaused(PAUSE_ACK_TIMEOUT_MS);
      return view(worker);
    });
  }

  resume(lab: LabInstance, ref: string): Promise<WorkerView> {
    return this.serially(lab, async () => {
      const worker = this.find(lab, ref, { alive: true });
      const waiting = worker.pending.now !== undefined || worker.pending.criticalWindow !== undefined;
      if (!worker.process.frozen && !waiting && !worker.process.status.armed) {
        throw new FencingError('invalid_input', `${worker.settings.name} is not paused`);
      }
      this.clearPause(worker);
      // A pause that has not struck yet is called off; a frozen worker gets its one byte.
      worker.process.send({ type: 'cancel-pauses' });
      worker.process.unfreeze();
      return view(worker);
    });
  }

  crash(lab: LabInstance, ref: string): Promise<WorkerView> {
    return this.serially(lab, async () => {
      const worker = this.find(lab, ref, { alive: true });
      this.clearPause(worker);
      await worker.process.kill();
      await this.record(worker, 'worker_crashed', { signal: 'SIGKILL' });
      return view(worker);
    });
  }

  restart(lab: LabInstance, ref: string): Promise<WorkerView> {
    return this.serially(lab, async () => {
      this.refuseIfClosed(lab);
      const worker = this.find(lab, ref);
      this.clearPause(worker);
      if (worker.process.alive) {
        await worker.process.kill();
        await this.record(worker, 'worker_crashed', { signal: 'SIGKILL', reason: 'restart' });
      }
      worker.failure = undefined;
      const joined = await joinAsLocalWorker(lab, worker.settings);
      worker.generation = joined.generation;
      worker.process = this.spawnWithinBudget(lab, worker.id, worker.settings, joined);
      await this.record(worker, 'worker_restarted');
      this.sweeper.ensureRunning();
      return view(worker);
    });
  }

  /** Stops the lab's workers and clears its lease, rows and history. Tokens never go back. */
  resetLab(lab: LabInstance): Promise<void> {
    return this.serially(lab, async () => {
      await this.stopAll(lab);
      this.counters.set(lab.id, 0);
      await resetLabData(lab);
    });
  }

  /** Stops the lab's workers (paused ones included) and leaves its data as it is. */
  stopLab(lab: LabInstance): Promise<void> {
    return this.serially(lab, () => this.stopAll(lab));
  }

  /** Ends every worker of every lab, paused ones included. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.instances.values()].map((lab) => this.stopLab(lab)));
    this.sweeper.stop();
  }

  /**
   * Closes a private lab for good: its workers stopped, and, in the same turn of its queue, no start
   * or restart after it. What the supervisor kept for the lab is let go (memory stays flat).
   */
  closeLab(lab: LabInstance): Promise<void> {
    return this.serially(lab, async () => {
      this.closed.add(lab.id);
      const running = [...this.workersOf(lab).values()].filter((w) => w.process.alive);
      await this.stopAll(lab);
      // Its history stays for replay: each lane ends where its worker was stopped.
      for (const worker of running) await this.record(worker, 'worker_stopped', { reason: 'the lab was closed' });
      this.labs.delete(lab.id);
      this.instances.delete(lab.id);
      this.counters.delete(lab.id);
    });
  }

  private refuseIfClosed(lab: LabInstance): void {
    if (this.closed.has(lab.id)) {
      throw new FencingError('lab_closed', 'this private lab was closed; its history is kept for replay');
    }
  }

  /** The OS process ids of running workers: for shutdown checks on this server, never for a client. */
  processIds(): number[] {
    return [...this.labs.values()].flatMap((workers) =>
      [...workers.values()].flatMap((w) => (w.process.alive && w.process.child.pid ? [w.process.child.pid] : [])),
    );
  }

  /** Synchronous last resort for process exit: SIGKILL to every child still running. */
  killAllNow(): void {
    for (const workers of this.labs.values()) {
      for (const worker of workers.values()) if (worker.process.alive) worker.process.child.kill('SIGKILL');
    }
  }

  private async stopAll(lab: LabInstance): Promise<void> {
    // Out of the map first, then killed: nothing is dropped while the kills are awaited.
    const workers = [...this.workersOf(lab).values()];
    this.workersOf(lab).clear();
    // Still counted against the budget until their processes are gone (a kill takes a moment).
    for (const worker of workers) this.exiting.add(worker);
    for (const worker of workers) this.clearPause(worker);
    try {
      await Promise.all(workers.map((worker) => worker.process.kill()));
    } finally {
      for (const worker of workers) this.exiting.delete(worker);
    }
  }

  /** Running worker processes, the shared labs' and the private labs' apart. */
  private runningByVisibility(): WorkerCounts {
    const counts: WorkerCounts = { shared: 0, private: 0 };
    const counted = [...this.labs.values()].flatMap((workers) => [...workers.values()]).concat([...this.exiting]);
    for (const w of counted) if (w.process.alive) counts[w.lab.visibility] += 1;
    return counts;
  }

  /**
   * The one way a worker process is started: the budget is counted and the process spawned in one
   * synchronous step (no await between them), so that concurrent starts in different labs cannot
   * both pass the same count. Private labs share only part of the budget: the rest is kept for the
   * shared labs, so the trainer can always start a worker (lib/model/lab-limits.ts).
   */
  private spawnWithinBudget(lab: LabInstance, id: string, settings: WorkerSettings, joined: Joined): WorkerProcess {
    const refusal = workerBudgetRefusal(this.runningByVisibility(), lab.visibility);
    if (refusal) throw new FencingError(refusal.code, refusal.message);
    return this.spawn(lab, id, settings, joined);
  }

  private spawn(lab: LabInstance, id: string, settings: WorkerSettings, joined: Joined): WorkerProcess {
    const spawned = new WorkerProcess(lab, id, settings, localWorkerUrl(), joined, (message) =>
      this.onWorkerMessage(lab, id, message),
    );
    spawned.child.once('exit', (code, signal) => {
      const worker = this.workersOf(lab).get(id);
      // Exits the supervisor did not cause are recorded; SIGKILLs it sent are recorded where sent.
      if (worker?.process === spawned && signal === null) {
        void this.record(worker, 'worker_stopped', { exitCode: code, reason: worker.failure ?? 'exited' });
      }
    });
    return spawned;
  }

  private onWorkerMessage(lab: LabInstance, id: string, message: WorkerMessage): void {
    const worker = this.workersOf(lab).get(id);
    if (!worker) return;
    if (message.type === 'fatal') worker.failure = message.message;
    if (message.type === 'paused') {
      const slot = message.trigger === 'critical-window' ? 'criticalWindow' : 'now';
      const lasts = worker.pending[slot];
      worker.pending[slot] = undefined;
      // Called off (resumed) after the worker had already started to freeze: wake it at once.
      if (lasts === undefined) worker.process.unfreeze();
      if (typeof lasts === 'number') {
        worker.resumeTimer = setTimeout(() => {
          worker.resumeTimer = undefined;
          worker.process.unfreeze();
        }, lasts);
      }
    }
  }

  private clearPause(worker: Worker): void {
    if (worker.resumeTimer) clearTimeout(worker.resumeTimer);
    worker.resumeTimer = undefined;
    worker.pending = {};
  }

  private find(lab: LabInstance, ref: string, { alive = false } = {}): Worker {
    const workers = this.workersOf(lab);
    const wanted = ref.trim().toLowerCase();
    const worker = workers.get(wanted) ?? [...workers.values()].find((w) => w.settings.name.toLowerCase() === wanted);
    if (!worker)
      throw new FencingError('invalid_input', `no worker ${JSON.stringify(ref)} in the ${labTitle(lab)} lab`);
    if (alive && !worker.process.alive) {
      throw new FencingError('invalid_input', `${worker.settings.name} is not running (restart it first)`);
    }
    return worker;
  }

  private workersOf(lab: LabInstance): Map<string, Worker> {
    let workers = this.labs.get(lab.id);
    if (!workers) {
      workers = new Map();
      this.labs.set(lab.id, workers);
      this.instances.set(lab.id, lab);
    }
    return workers;
  }

  private record(
    worker: Worker,
    kind: 'worker_started' | 'worker_stopped' | 'worker_crashed' | 'worker_restarted',
    detail: Record<string, unknown> = {},
  ): Promise<void> {
    const event: NewEvent = {
      lab: worker.lab.id,
      actor: worker.settings.name,
      kind,
      resource: worker.lab.resource,
      detail: {
        workerId: worker.id,
        ...worker.settings,
        // Which server runs it: a server that starts after this one died records its end.
        ...(kind === 'worker_started' || kind === 'worker_restarted' ? { server: thisServerRun() } : {}),
        ...detail,
      },
    };
    // In the worker's run: a worker's end recorded after its lab was reset is refused, not mixed in.
    return appendEvent(getPool(), event, { generation: worker.generation }).catch((error: unknown) => {
      if (isFencingError(error, 'db_unavailable')) this.pendingRecords.add(event, worker.generation);
      else console.error('[supervisor] could not record an event:', (error as Error).message);
    });
  }
}

function view(worker: Worker): WorkerView {
  const status = worker.process.status;
  return {
    id: worker.id,
    name: worker.settings.name,
    lab: worker.lab.id,
    phase: worker.process.alive ? status.phase : 'stopped',
    alive: worker.process.alive,
    armed: status.armed,
    settings: worker.settings,
    ...(status.token === undefined ? {} : { token: status.token }),
    ...(status.believedUntil === undefined ? {} : { believedUntil: status.believedUntil }),
    ...(worker.failure ? { failure: worker.failure } : {}),
  };
}

type GlobalWithSupervisor = typeof globalThis & { __fencingLabSupervisor?: LabSupervisor };

/** The process's one supervisor. Its children are ended when this process exits, however it exits. */
export function getSupervisor(): LabSupervisor {
  const holder = globalThis as GlobalWithSupervisor;
  if (!holder.__fencingLabSupervisor) {
    const supervisor = new LabSupervisor();
    holder.__fencingLabSupervisor = supervisor;
    // Workers also end by themselves when this process dies (IPC disconnect, EOF on the pause
    // pipe); this only makes it immediate on an orderly exit.
    process.once('exit', () => supervisor.killAllNow());
  }
  return holder.__fencingLabSupervisor;
}
