import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { appendEvent } from '../../db/events';
import { findLab, labJoinKey } from '../../db/labs';
import { getPool, toFencingError } from '../../db/pool';
import { enqueueWorkerCommand, hasPendingCommand, REMOTE_HEARTBEAT_FRESH_MS } from '../../db/remote-workers';
import {
  findWorkerStatus,
  historySaysRunning,
  listWorkerStatus,
  markWorkerKilled,
  type WorkerStatusRecord,
} from '../../db/worker-status';
import { FencingError, isFencingError } from '../model/core/errors';
import type { NewEvent } from '../model/core/events';
import type { WorkerCommand } from '../model/core/worker-commands';
import {
  MAX_WORKERS_PER_LAB,
  type PausePlan,
  type WorkerSettings,
  workerSettingsForLab,
} from '../model/lab/lab-inputs';
import { type LabInstance, labTitle } from '../model/lab/lab-instance';
import { DELAYED_WRITE_MARKER, hasPacketRelay } from '../model/lab/lab-kinds';
import type { PacketRelay } from '../os/packet-relay';
import { singleton } from '../os/process-singletons';
import { ExpiryRecorder } from './expiry-recorder';
import { resetLabData } from './lab-reset';
import { LocalWorkers } from './local-workers';
import { PendingRecords } from './pending-records';
import { openWorkerPacketRelay } from './worker-packet-relay';
import type { WorkerProcess } from './worker-process';

/** How long a command waits for the worker's status row to say it was done. */
const ACK_TIMEOUT_MS = 3_000;
const STOP_TIMEOUT_MS = 5_000;
/** How long a new worker process has to join its lab. */
const JOIN_TIMEOUT_MS = 30_000;
const POLL_MS = 50;
/** How often a worker whose heartbeat is late is looked at again before it is called not running. */
const LATE_BEAT_POLL_MS = 250;
/** A stopped worker on another machine may still have a statement in flight: it lands before the reset. */
const STOP_SETTLE_MS = 300;
/** The expiry recorder runs while live workers were seen this recently in a lab someone watches. */
const LIVE_RECORDING_GRACE_MS = 5_000;

/** What the UI and the server actions may know of a worker: read from its status row, no process id. */
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
  /** Started by hand (`npm run worker`), here or on another machine: restarted there, not from a page. */
  remote?: boolean;
};

function view(worker: WorkerStatusRecord): WorkerView {
  return {
    id: worker.id,
    name: worker.name,
    lab: worker.lab,
    phase: worker.live ? worker.phase : 'stopped',
    alive: worker.live,
    armed: worker.live && worker.armed,
    settings: worker.settings,
    ...(worker.origin ? {} : { remote: true }),
    ...(worker.token === undefined ? {} : { token: worker.token }),
    ...(worker.believedUntil === undefined ? {} : { believedUntil: worker.believedUntil }),
  };
}

/**
 * A lab's workers, whichever app server started them and wherever they run: the one control path.
 * What a worker is and how it stands is its status row; every command travels to it through the
 * database (worker_commands), so any server drives any worker. The only thing done to a process
 * directly is SIGKILL, and only by the server that started it (LocalWorkers): a crash asked of a
 * worker another server runs, or one started by hand, travels as a command, and the worker's own
 * listener SIGKILLs its process. One instance per process (see getSupervisor).
 * Callers serialise a lab's commands (lib/server/lab-queue.ts).
 */
export class LabSupervisor {
  readonly local = new LocalWorkers();
  /** Private labs closed while this server ran: a start already on its way must not land in one. */
  private readonly closed = new Set<string>();
  /** Events the database could not take when they happened, written once it is back. */
  private readonly pendingRecords = new PendingRecords();
  private liveSeenAt = 0;
  /** The handling of each exit of a process of this server (onExit), until it has settled. */
  private readonly exitHandling = new Set<Promise<void>>();
  /** A frozen holder cannot say its lease ran out: the server records expiries while workers live. */
  private readonly expiryRecorder = new ExpiryRecorder(
    () => this.local.processIds().length > 0 || Date.now() - this.liveSeenAt < LIVE_RECORDING_GRACE_MS,
  );

  /** The lab's workers as their status rows say. */
  async listWorkers(lab: LabInstance): Promise<WorkerView[]> {
    const found = await listWorkerStatus(lab.id);
    if (found.some((worker) => worker.live)) {
      this.liveSeenAt = Date.now();
      this.expiryRecorder.ensureRunning();
    }
    return found.map(view);
  }

  async startWorker(lab: LabInstance, requested: WorkerSettings): Promise<WorkerView> {
    const settings = workerSettingsForLab(lab.kind, requested);
    await this.refuseIfClosed(lab);
    const workers = await listWorkerStatus(lab.id);
    // Live workers only: a crashed one kept for its restart button takes no place (issue 23). A worker
    // of this server whose process runs counts too, though its first heartbeat may be late (a busy machine).
    if (workers.filter((w) => w.live || this.local.owned(lab, w)).length >= MAX_WORKERS_PER_LAB) {
      throw new FencingError('invalid_input', `a lab runs at most ${MAX_WORKERS_PER_LAB} workers`);
    }
    const twin = workers.find((w) => w.name.toLowerCase() === settings.name.toLowerCase());
    if (twin) {
      throw new FencingError(
        'invalid_input',
        `there is already a worker named ${JSON.stringify(settings.name)}${twin.origin ? '' : ' (remote)'}`,
      );
    }
    const joinKey = await labJoinKey(lab.id);
    return this.joined(await this.spawn(lab, settings, { restart: false, joinKey }));
  }

  async pause(lab: LabInstance, ref: string, plan: PausePlan): Promise<WorkerView> {
    const worker = await this.find(lab, ref, { alive: true });
    if (worker.phase === 'paused') throw new FencingError('invalid_input', `${worker.name} is already paused`);
    const seconds = plan.mode === 'until-resumed' ? undefined : plan.seconds;
    if (plan.mode === 'critical-window') {
      await this.command(worker, 'arm-critical-pause', seconds);
      return this.waitFor(worker, (w) => w.armed || w.phase === 'paused', ACK_TIMEOUT_MS);
    }
    await this.command(worker, 'pause-now', seconds);
    return this.waitFor(worker, (w) => w.phase === 'paused', ACK_TIMEOUT_MS);
  }

  async resume(lab: LabInstance, ref: string): Promise<WorkerView> {
    const worker = await this.find(lab, ref, { alive: true });
    const waiting = await hasPendingCommand({
      lab: lab.id,
      worker: worker.name,
      commands: ['pause-now', 'arm-critical-pause'],
    });
    if (worker.phase !== 'paused' && !worker.armed && !waiting) {
      throw new FencingError('invalid_input', `${worker.name} is not paused`);
    }
    await this.command(worker, 'resume');
    return this.waitFor(worker, (w) => w.phase !== 'paused' && !w.armed, ACK_TIMEOUT_MS);
  }

  async crash(lab: LabInstance, ref: string): Promise<WorkerView> {
    let worker: WorkerStatusRecord;
    try {
      worker = await this.find(lab, ref, { alive: true });
    } catch (error) {
      // The database is away: a process of this server is still crashed, as it knows it, and the
      // crash is recorded once the database is back (its lane ends at the crash).
      const known = toFencingError(error);
      const mine = this.local.named(lab, ref)?.joinedAs;
      if (!isFencingError(known, 'db_unavailable') || !mine) throw known;
      worker = mine;
    }
    return this.crashFound(lab, worker);
  }

  async restart(lab: LabInstance, ref: string): Promise<WorkerView> {
    await this.refuseIfClosed(lab);
    const worker = await this.find(lab, ref);
    if (!worker.origin) {
      throw new FencingError(
        'invalid_input',
        `${worker.name} is a remote worker: a remote worker is restarted on its own machine`,
      );
    }
    // Its status row's settings, which a worker's own join stored: the same check as a start's.
    let settings: WorkerSettings;
    try {
      settings = workerSettingsForLab(lab.kind, worker.settings);
    } catch (error) {
      if (!isFencingError(error, 'invalid_input')) throw error;
      throw new FencingError(
        'invalid_input',
        `${worker.name} cannot be restarted from its stored settings: ${error.message}`,
      );
    }
    if (worker.live) {
      await this.crashFound(lab, worker, { reason: 'restart' });
    } else if (await historySaysRunning({ lab: lab.id, name: worker.name })) {
      // Its server died without a word: its lane ends here, before the new run of it begins.
      await this.record(lab, worker, 'worker_stopped', {
        reason: 'the server that ran it stopped, and the process with it',
      });
    }
    const joinKey = await labJoinKey(lab.id);
    return this.joined(await this.spawn(lab, settings, { restart: true, joinKey }));
  }

  /**
   * The delayed-packet labs: from the worker's next write on, its proxy holds that connection's bytes
   * (the statement really stays unsent) until released. Only a worker this server started has one.
   */
  async holdConnection(lab: LabInstance, ref: string): Promise<{ worker: WorkerView; message: string }> {
    const { worker, relay } = await this.relayOf(lab, ref);
    if (relay.holding) throw new FencingError('invalid_input', `${worker.name}'s connection is already held`);
    // Recorded when the write is really caught (it may come seconds later), not when the hold is armed:
    // the walkthrough says "the proxy held those bytes" only of a write this event names.
    relay.holdNext(DELAYED_WRITE_MARKER, ({ bytes }) => void this.recordPacket(lab, worker, 'packet_held', { bytes }));
    return {
      worker: view(worker),
      message: `the proxy holds ${worker.name}'s next write, and everything after it on that connection, until released`,
    };
  }

  /** Sends the held bytes on: PostgreSQL receives the write now, late, and runs it. */
  async releaseConnection(lab: LabInstance, ref: string): Promise<{ worker: WorkerView; message: string }> {
    const { worker, relay } = await this.relayOf(lab, ref);
    if (!relay.holding) throw new FencingError('invalid_input', `${worker.name}'s connection is not held`);
    // Recorded before the bytes go on, so that it comes before the write's answer in the history.
    const held = relay.heldConnections();
    const heldBytes = held.reduce((n, c) => n + c.heldBytes, 0);
    const heldSince = held[0]?.heldSince;
    if (heldBytes > 0) {
      await this.recordPacket(lab, worker, 'packet_released', {
        bytes: heldBytes,
        ...(heldSince === undefined ? {} : { heldMs: Date.now() - heldSince }),
      });
    }
    const bytes = relay.release();
    return {
      worker: view(worker),
      message:
        bytes > 0
          ? `released ${bytes} held bytes of ${worker.name}'s: PostgreSQL receives its write now`
          : `${worker.name} had sent no write yet: the hold is off`,
    };
  }

  /** Stops the lab's workers and clears its lease, rows and history. Tokens never go back. */
  async resetLab(lab: LabInstance, rowValue?: string): Promise<void> {
    // A person's worker is told to stop, not waited for: the reset's new generation shuts it out
    // (lib/supervisor/lab-reset.ts), and one that never answers would hold the reset for STOP_TIMEOUT_MS.
    await this.stopAll(lab, { waitForLines: false });
    await resetLabData(lab, rowValue);
  }

  /**
   * Stops the lab's workers (paused ones included) and leaves its data as it is: its history stays,
   * so each lane ends where its worker was stopped (a worker told to stop records nothing itself,
   * as a reset is about to clear its history). An attack, a fork, a sweep's run and a scenario end so.
   */
  async stopLab(lab: LabInstance, reason = 'its run ended'): Promise<void> {
    const ours = this.local.inLab(lab);
    const running = await this.stopAll(lab);
    for (const worker of running) await this.record(lab, worker, 'worker_stopped', { reason });
    // A process of ours the status rows did not count as live (frozen past its beat, starved under
    // load, or not yet seen joined) was SIGKILLed all the same: its lane ends too, or the next run's
    // worker of that name is refused as already running.
    const recorded = new Set(running.map((worker) => worker.name.toLowerCase()));
    for (const p of ours) {
      if (!recorded.has(p.name.toLowerCase())) await this.recordEndIfRunning(p, 'worker_stopped', { reason });
    }
  }

  /** Closes a private lab for good: its workers stopped, each lane ended, and no start after it. */
  async closeLab(lab: LabInstance): Promise<void> {
    this.closed.add(lab.id);
    await this.stopLab(lab, 'the lab was closed');
  }

  /** Ends the workers this server started (told to stop, then SIGKILLed if they did not). */
  async shutdown(): Promise<void> {
    this.local.closeWarm();
    const processes = this.local.all();
    for (const p of processes) p.endExpected = true;
    await Promise.all(
      processes.map(async (p) => {
        // The database away at shutdown: the worker is signalled below all the same.
        const row = await findWorkerStatus({ lab: p.lab.id, ref: p.name }).catch(() => undefined);
        // The worker may be gone already; a stop command is only the polite way.
        if (row?.live && row.origin?.workerPid === p.pid) await this.command(row, 'stop').catch(() => undefined);
      }),
    );
    await this.awaitExits(processes);
    // Their lanes end now, not when a server next starts (a stop command records no event: it is a reset's).
    await Promise.all(
      processes.map((p) => this.recordEndIfRunning(p, 'worker_stopped', { reason: 'its app server was stopped' })),
    );
    this.expiryRecorder.stop();
  }

  /**
   * A process of this server that ended while nobody here was ending it: kill -9 from a shell, the
   * OOM killer, a crash of its own. Recorded at once (its status row too), so that its lane ends
   * where it died; a worker that stopped on its own (Ctrl-C, a failure) recorded its own end.
   */
  private async onExit(p: WorkerProcess): Promise<void> {
    // Exit code 0: it was told to stop (a reset, from any server) or stopped itself, and said so.
    if (p.endExpected || p.exitCode === 0) return;
    const how = p.exitSignal ? `killed by ${p.exitSignal}` : `exited with code ${p.exitCode}`;
    await this.recordEndIfRunning(p, 'worker_crashed', {
      ...(p.exitSignal ? { signal: p.exitSignal } : {}),
      reason: `its process ended (${how}) without a word from the lab`,
    });
  }

  private async recordEndIfRunning(
    p: WorkerProcess,
    kind: 'worker_stopped' | 'worker_crashed',
    detail: Record<string, unknown>,
  ): Promise<void> {
    if (p.pid === undefined) return;
    const worker =
      p.joinedAs ??
      (await findWorkerStatus({ lab: p.lab.id, ref: p.name })
        .then((row) => (row?.origin?.workerPid === p.pid ? row : undefined))
        .catch(() => undefined)); // the database away: treated as no status row
    if (!worker) return;
    try {
      if (!(await historySaysRunning({ lab: p.lab.id, name: worker.name }))) return;
      await markWorkerKilled({ lab: p.lab.id, name: worker.name, workerPid: p.pid });
    } catch (error) {
      // The database is away: the next server start ends the lane (lib/jobs/orphaned-workers.ts).
      if (!isFencingError(toFencingError(error), 'db_unavailable')) throw error;
      return;
    }
    await this.record(p.lab, worker, kind, detail);
  }

  /**
   * Settles once every exit of a process of this server so far has been handled (an unseen death
   * recorded, an expected one let be): a fact a test waits on before it asserts what was not recorded.
   */
  async exitsHandled(): Promise<void> {
    await Promise.all([...this.exitHandling]);
  }

  /** The OS process ids of the workers this server runs: for shutdown checks, never for a client. */
  processIds(): number[] {
    return this.local.processIds();
  }

  killAllNow(): void {
    this.local.killAllNow();
  }

  /**
   * Tells every live worker of the lab to stop and waits until each has: a process this server
   * started, until it has exited (SIGKILL if it did not obey); one elsewhere, until its row says so
   * or it fell silent; one from a person's worker line not at all when `waitForLines` is false.
   * Returns the workers that were live.
   */
  private async stopAll(lab: LabInstance, { waitForLines = true } = {}): Promise<WorkerStatusRecord[]> {
    const live = (await listWorkerStatus(lab.id)).filter((w) => w.live);
    let elsewhere = false;
    await Promise.all(
      live.map(async (worker) => {
        const owned = this.local.owned(lab, worker);
        if (owned) owned.endExpected = true;
        await this.command(worker, 'stop');
        if (owned) return this.awaitExits([owned]);
        // The reset's generation waits for its statements in flight: no settling needed either.
        if (worker.fromLine && !waitForLines) return;
        elsewhere = true;
        await this.waitFor(worker, (w) => !w.live, STOP_TIMEOUT_MS);
      }),
    );
    // Processes of this server in the lab that had not joined, or did not stop: SIGKILL.
    await Promise.all(
      this.local.inLab(lab).map((p) => {
        p.endExpected = true;
        return p.kill();
      }),
    );
    // A worker elsewhere may have had a statement in flight when it heard: it lands before what follows.
    if (elsewhere) await sleep(STOP_SETTLE_MS);
    return live;
  }

  /** Waits for the processes to exit; SIGKILLs those still running after STOP_TIMEOUT_MS. */
  private async awaitExits(processes: WorkerProcess[]): Promise<void> {
    await Promise.all(
      processes.map(async (p) => {
        const timer = setTimeout(() => void p.kill(), STOP_TIMEOUT_MS);
        await p.exited;
        clearTimeout(timer);
      }),
    );
  }

  /**
   * A process this server started is SIGKILLed here (frozen or not), and the server records it; a
   * worker another server runs, or one started by hand, is sent the crash as a command: its own
   * listener records it and SIGKILLs its process.
   */
  private async crashFound(
    lab: LabInstance,
    worker: WorkerStatusRecord,
    detail: Record<string, unknown> = {},
  ): Promise<WorkerView> {
    const owned = this.local.owned(lab, worker);
    if (owned?.pid !== undefined) {
      owned.endExpected = true;
      await owned.kill();
      await markWorkerKilled({ lab: lab.id, name: worker.name, workerPid: owned.pid }).catch((error: unknown) => {
        // Away: its row goes stale by itself, and the lab shows it stopped.
        if (!isFencingError(toFencingError(error), 'db_unavailable')) throw error;
      });
      await this.record(lab, worker, 'worker_crashed', { signal: 'SIGKILL', ...detail });
      return view({ ...worker, live: false });
    }
    await this.command(worker, 'crash');
    return this.waitFor(worker, (w) => !w.live, STOP_TIMEOUT_MS);
  }

  /** Resolves with the new process's worker once it has joined its lab; its own words if it could not. */
  private async joined(spawned: WorkerProcess): Promise<WorkerView> {
    this.expiryRecorder.ensureRunning();
    const deadline = Date.now() + JOIN_TIMEOUT_MS;
    for (;;) {
      if (!spawned.alive) throw new FencingError('invalid_input', spawned.failure());
      const found = (await listWorkerStatus(spawned.lab.id)).find((w) => w.live && w.origin?.workerPid === spawned.pid);
      if (found) {
        spawned.joinedAs = found;
        return view(found);
      }
      if (Date.now() >= deadline) {
        await spawned.kill();
        throw new FencingError('db_unavailable', `${spawned.name} did not join its lab in time`);
      }
      await sleep(POLL_MS);
    }
  }

  /** Starts a process; a delayed-packet lab's worker with a proxy of its own in front of PostgreSQL. */
  private async spawn(
    lab: LabInstance,
    settings: WorkerSettings,
    how: { restart: boolean; joinKey?: string },
  ): Promise<WorkerProcess> {
    const relay = await openWorkerPacketRelay(lab);
    try {
      const spawned = this.local.start(lab, settings, { ...how, ...(relay ? { relay } : {}) });
      const handled = spawned.exited
        .then(() => this.onExit(spawned))
        .catch((error: unknown) => console.error('[supervisor] a worker ended unseen:', error))
        .finally(() => this.exitHandling.delete(handled));
      this.exitHandling.add(handled);
      return spawned;
    } catch (error) {
      await relay?.relay.close();
      throw error;
    }
  }

  private async relayOf(lab: LabInstance, ref: string): Promise<{ worker: WorkerStatusRecord; relay: PacketRelay }> {
    if (!hasPacketRelay(lab.kind)) {
      throw new FencingError('invalid_input', 'only the delayed-packet labs hold a connection');
    }
    const worker = await this.find(lab, ref, { alive: true });
    const relay = this.local.owned(lab, worker)?.relay;
    if (!relay || relay.isClosed) {
      throw new FencingError(
        'invalid_input',
        `${worker.name} does not connect through this server's proxy: only a worker this server started can be held`,
      );
    }
    return { worker, relay };
  }

  private async refuseIfClosed(lab: LabInstance): Promise<void> {
    if (this.closed.has(lab.id) || (await findLab(lab.id))?.closedAt) {
      throw new FencingError('lab_closed', 'this private lab was closed; its history is kept for replay');
    }
  }

  private async find(lab: LabInstance, ref: string, { alive = false } = {}): Promise<WorkerStatusRecord> {
    const worker = await findWorkerStatus({ lab: lab.id, ref });
    if (!worker) {
      throw new FencingError('invalid_input', `no worker ${JSON.stringify(ref)} in the ${labTitle(lab)} lab`);
    }
    if (!alive || worker.live) return worker;
    // A process of this server that still runs is running, whatever its row says: on a starved machine its
    // heartbeat can be late (its row then reads "not live"), and the command waits in its queue for it.
    if (this.local.owned(lab, worker)) return worker;
    // Another server's worker, or a remote one: a beat late by less than the row's window is waited for.
    const deadline = Date.now() + REMOTE_HEARTBEAT_FRESH_MS;
    while (Date.now() < deadline && !['stopped', 'crashed'].includes(worker.phase)) {
      await sleep(LATE_BEAT_POLL_MS);
      const again = await findWorkerStatus({ lab: lab.id, ref });
      if (!again) break;
      if (again.live) return again;
    }
    throw new FencingError('invalid_input', `${worker.name} is not running (restart it first)`);
  }

  private async command(worker: WorkerStatusRecord, command: WorkerCommand, seconds?: number): Promise<void> {
    await enqueueWorkerCommand({ lab: worker.lab, worker: worker.name, command, ...(seconds ? { seconds } : {}) });
  }

  /** Polls the worker's row until `done` holds or time is up; returns what the row says then. */
  private async waitFor(
    worker: WorkerStatusRecord,
    done: (worker: WorkerStatusRecord) => boolean,
    timeoutMs: number,
  ): Promise<WorkerView> {
    const deadline = Date.now() + timeoutMs;
    let latest = worker;
    for (;;) {
      latest = (await findWorkerStatus({ lab: worker.lab, ref: worker.name })) ?? { ...latest, live: false };
      if (done(latest) || Date.now() >= deadline) return view(latest);
      await sleep(POLL_MS);
    }
  }

  /** What the worker's proxy did to its bytes, in the worker's lane and run (a fact the walkthrough reads). */
  private recordPacket(
    lab: LabInstance,
    worker: WorkerStatusRecord,
    kind: 'packet_held' | 'packet_released',
    detail: { bytes: number; heldMs?: number },
  ): Promise<void> {
    const event: NewEvent = { lab: worker.lab, actor: worker.name, kind, resource: lab.resource, detail };
    return appendEvent(getPool(), event, { generation: worker.generation }).catch((error: unknown) => {
      if (isFencingError(error, 'db_unavailable')) this.pendingRecords.add(event, worker.generation);
      else console.error('[supervisor] could not record an event:', (error as Error).message);
    });
  }

  private record(
    lab: LabInstance,
    worker: WorkerStatusRecord,
    kind: 'worker_stopped' | 'worker_crashed',
    detail: Record<string, unknown> = {},
  ): Promise<void> {
    const event: NewEvent = {
      lab: worker.lab,
      actor: worker.name,
      kind,
      resource: lab.resource,
      detail: {
        workerId: worker.id,
        ...worker.settings,
        ...(worker.origin ? {} : { remote: true }),
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

/**
 * The process's one supervisor (lib/os/process-singletons.ts). Its children are ended when this process exits,
 * however it exits; closeAll ends them in order (shutdown).
 */
export function getSupervisor(): LabSupervisor {
  return singleton(
    'supervisor',
    () => {
      const supervisor = new LabSupervisor();
      // Workers also end by themselves when this process dies (their lifeline reads end of file);
      // this only makes it immediate on an orderly exit.
      process.once('exit', () => supervisor.killAllNow());
      return supervisor;
    },
    (supervisor) => supervisor.shutdown(),
  );
}
