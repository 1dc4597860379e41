import 'server-only';
import { roomSettings } from '../config/room-settings';
import { FencingError } from '../model/core/errors';
import type { WorkerSettings } from '../model/lab/lab-inputs';
import type { LabInstance } from '../model/lab/lab-instance';
import { type WorkerCounts, workerBudgetRefusal } from '../model/lab/lab-limits';
import type { PacketRelay } from '../os/packet-relay';
import { localWorkerUrl } from './local-worker-url';
import { WarmWorkers } from './warm-workers';
import { WorkerProcess } from './worker-process';

/*
 * The worker processes this server started, and nothing else: it starts them (within the server's
 * budget), SIGKILLs them (a crash, or a stop they did not obey) and knows their process ids. What a
 * worker does and how it stands is in the database (its status row); every command but the SIGKILL
 * reaches it there, from this server or any other (supervisor.ts).
 */
export class LocalWorkers {
  /** Running processes, until they have exited (a kill takes a moment, and still counts). */
  private readonly running = new Set<WorkerProcess>();
  /** Processes loaded ahead of need (FENCING_LAB_WARM_WORKERS): a start takes one when one is ready (warm-workers.ts). */
  private readonly warm = new WarmWorkers(roomSettings().warmWorkers);

  /**
   * The one way a worker process is started: the budget is counted and the process spawned in one
   * synchronous step (no await between them), so that concurrent starts in different labs cannot
   * both pass the same count. Private labs share only part of the budget: the rest is kept for the
   * shared labs, so the trainer can always start a worker (lib/model/lab/lab-limits.ts).
   */
  start(
    lab: LabInstance,
    settings: WorkerSettings,
    how: { restart: boolean; joinKey?: string; relay?: { relay: PacketRelay; url: string } },
  ): WorkerProcess {
    const refusal = workerBudgetRefusal(this.countByVisibility(), lab.visibility);
    if (refusal) throw new FencingError(refusal.code, refusal.message);
    const { relay, ...rest } = how;
    const spawned = new WorkerProcess(lab, settings, relay?.url ?? localWorkerUrl(), {
      ...rest,
      ...(relay ? { relay: relay.relay } : {}),
      warm: this.warm.take(),
    });
    this.running.add(spawned);
    void spawned.exited.then(() => this.running.delete(spawned));
    return spawned;
  }

  /**
   * This server's process of the worker, if this server runs it. The status row's pid alone is the
   * worker's word: the process must also be one this server started, in that lab, under that name,
   * so that no row can point a crash at another worker's process.
   */
  owned(lab: LabInstance, worker: { name: string; origin?: { workerPid: number } }): WorkerProcess | undefined {
    const workerPid = worker.origin?.workerPid;
    if (workerPid === undefined) return undefined;
    return [...this.running].find(
      (p) => p.lab.id === lab.id && p.name === worker.name && p.pid === workerPid && p.alive,
    );
  }

  /** Every process of this server still running. */
  all(): WorkerProcess[] {
    return [...this.running].filter((p) => p.alive);
  }

  /** This server's live process of the worker `ref` names (its id or its name), as it joined. */
  named(lab: LabInstance, ref: string): WorkerProcess | undefined {
    const wanted = ref.trim().toLowerCase();
    return this.inLab(lab).find((p) => p.name.toLowerCase() === wanted || p.joinedAs?.id === wanted);
  }

  /** The lab's processes on this server. */
  inLab(lab: LabInstance): WorkerProcess[] {
    return [...this.running].filter((p) => p.lab.id === lab.id && p.alive);
  }

  /** The OS process ids of running workers: for shutdown checks on this server, never for a client. */
  processIds(): number[] {
    return [...this.running].flatMap((p) => (p.alive && p.pid ? [p.pid] : []));
  }

  /** Synchronous last resort for process exit: SIGKILL to every child still running, warm ones included. */
  killAllNow(): void {
    this.warm.close();
    for (const p of this.running) if (p.alive) p.child.kill('SIGKILL');
  }

  /** Ends every worker process, and the warm ones (the pool stays closed: the server is shutting down). */
  async killAll(): Promise<void> {
    this.warm.close();
    await Promise.all([...this.running].map((p) => p.kill()));
  }

  /** Ends the warm processes, and starts no more (the server is shutting down). */
  closeWarm(): void {
    this.warm.close();
  }

  /** The process ids of the warm processes ready now: for tests, never for a client. */
  warmPids(): number[] {
    return this.warm.readyPids();
  }

  private countByVisibility(): WorkerCounts {
    const counts: WorkerCounts = { shared: 0, private: 0 };
    for (const p of this.running) if (p.alive) counts[p.lab.visibility] += 1;
    return counts;
  }
}
