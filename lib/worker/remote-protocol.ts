import type { RemoteStatus } from '../../db/remote-workers';
import type { PauseTrigger } from './protocol';

/** Messages between a remote worker's main thread (the lease loop) and its command listener thread. */

/** Main thread → listener. */
export type ToListener =
  | ({ type: 'status' } & RemoteStatus)
  /** Posted, with the shared state already marked frozen, just before the main thread blocks. */
  | { type: 'paused'; trigger: PauseTrigger }
  /** The main thread is stopping on its own (Ctrl-C): stop beating, it marks the row itself. */
  | { type: 'stopping' };

/** Listener → main thread: what the trainer asked for, as the lease client understands it. */
export type ToMain =
  | { type: 'pause-now' }
  | { type: 'arm-critical-pause' }
  | { type: 'cancel-pauses' }
  | { type: 'stop'; reason: string };

/** What the listener thread is started with (workerData). */
export type ListenerData = {
  databaseUrl: string;
  lab: { id: string; resource: string };
  name: string;
  instance: string;
  /** The run of the lab it joined: its events are refused once the lab has been reset since. */
  generation: number;
  /** Recorded with worker_crashed, as the supervisor records a local worker's settings. */
  settings: Record<string, unknown>;
  /** Shared with the main thread (remote-freeze.ts). */
  freezeState: Int32Array;
};
