import type { WorkerCommand } from '../model/core/worker-commands';
import type { LabInstance } from '../model/lab/lab-instance';
import type { LeaseClock } from '../model/lab/worker-clock';

/*
 * Inside one worker process: what its main thread (the lease loop, main.ts) and its listener thread
 * (commands and heartbeat, listener.ts) tell each other. Between processes there is no protocol: a
 * worker takes its commands from the database and reports its state in its status row.
 */

export type WorkerConfig = {
  lab: LabInstance;
  name: string;
  leaseTtlMs: number;
  renewEveryMs: number;
  writeEveryMs: number;
  /** The drifting-clock labs only: how slow this worker's clock runs, in percent (lib/model/lab/worker-clock.ts). */
  clockSlowPercent?: number | undefined;
  /** The drifting-clock labs only: whose clock it judges its lease by before a write (absent: its own). */
  leaseClock?: LeaseClock | undefined;
  /** The delayed-packet labs only: give up on an unanswered write after this long, and send it again. */
  retryAfterMs?: number | undefined;
  /** The your-guard lab only: the value it writes every time (absent: its name and a count). */
  writeValue?: string | undefined;
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

export type WorkerPhase = 'starting' | 'acquiring' | 'holding' | 'paused' | 'reconnecting' | 'stopped';

export type WorkerStatus = {
  phase: WorkerPhase;
  token?: number;
  /** When the worker believes its lease runs out, by its own clock (ISO). */
  believedUntil?: string;
  armed: boolean;
};

/** Main thread → listener. */
export type ToListener =
  | ({ type: 'status' } & WorkerStatus)
  /** Posted, with the shared state already marked frozen, just before the main thread blocks. */
  | { type: 'paused'; trigger: PauseTrigger }
  /** The main thread is stopping on its own (Ctrl-C, a failure): stop beating, it marks the row itself. */
  | { type: 'stopping' };

/** What the lease loop itself does about a command; the listener handles the rest (timers, waking, stopping). */
export type PauseCommand = Extract<WorkerCommand, 'pause-now' | 'arm-critical-pause' | 'cancel-pauses'>;

/** Listener → main thread. */
export type ToMain = { type: PauseCommand } | { type: 'stop'; reason: string };

/** What the listener thread is started with (workerData). */
export type ListenerData = {
  databaseUrl: string;
  lab: { id: string; resource: string };
  name: string;
  instance: string;
  /** The run of the lab it joined: its events are refused once the lab has been reset since. */
  generation: number;
  /** What its lifecycle events carry (its id, settings, and where it runs). */
  detail: Record<string, unknown>;
  /** Shared with the main thread (freeze.ts). */
  freezeState: Int32Array;
  /**
   * A worker an app server started: the read end of its lifeline, a pipe whose other end only the
   * server holds. Its end of file means the server is gone, however it went.
   */
  lifelineFd?: number;
  /** Whether to print what it is told on its terminal (a worker started by hand has one). */
  chatty: boolean;
};
