import type { LabInstance } from '../model/lab-instance';

/** The typed messages between the supervisor and a worker process (over the fork IPC channel). */

export type WorkerConfig = {
  lab: LabInstance;
  /** The lab's own id for this worker ("w1"), never a PID. */
  workerId: string;
  name: string;
  leaseTtlMs: number;
  renewEveryMs: number;
  writeEveryMs: number;
  databaseUrl: string;
  /**
   * The run of the lab this worker joined (labs.generation): every lease, write and event it sends
   * carries it, and the database refuses them once the lab has been reset since.
   */
  generation: number;
  /**
   * The per-run secret it joined with (db/worker-identity.ts): with the lab and its name, presented to
   * every worker function, which refuses another worker's name or instance.
   */
  instance: string;
};

export type PauseTrigger = 'now' | 'critical-window';

/** What may be asked of a running worker's pauses, locally or from afar. */
export type PauseCommand = 'pause-now' | 'arm-critical-pause' | 'cancel-pauses';

export type SupervisorMessage =
  /** Freeze now, wherever the worker is. */
  | { type: 'pause-now' }
  /** Freeze the next time the worker is between its lease check and its write. */
  | { type: 'arm-critical-pause' }
  /** Call off any pause that has not struck yet (armed or requested). */
  | { type: 'cancel-pauses' }
  | { type: 'stop' };

export type WorkerPhase = 'starting' | 'acquiring' | 'holding' | 'paused' | 'reconnecting' | 'stopped';

export type WorkerMessage =
  | {
      type: 'status';
      phase: WorkerPhase;
      token?: number;
      /** When the worker believes its lease runs out, by its own clock (ISO). */
      believedUntil?: string;
      armed: boolean;
    }
  /** Sent, and flushed, just before the worker blocks: the supervisor resumes it. */
  | { type: 'paused'; trigger: PauseTrigger }
  | { type: 'fatal'; message: string };

/** The worker's pause pipe is this file descriptor: one byte from the supervisor resumes it. */
export const PAUSE_FD = 3;
