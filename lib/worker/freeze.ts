/*
 * Every worker's stop-the-world freeze: the main thread blocks in Atomics.wait on a shared Int32Array,
 * running no JavaScript at all (no timers, no renewals, no I/O callbacks), exactly like a long GC
 * pause. The command listener, a thread of its own that keeps beating while the main thread is
 * frozen, wakes it (listener.ts). Chosen over SIGSTOP/SIGCONT because a pause armed for the critical
 * window must strike at one exact line of code, which only the worker itself can do. No pg, no
 * process: shared memory only.
 */

const RUNNING = 0;
const FROZEN = 1;
/** Woken to stop: the lab was reset or closed; nobody will resume this worker. */
const STOPPING = 2;

export type FreezeState = Int32Array;

export function newFreezeState(): FreezeState {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

/**
 * Main thread, just before it says it is paused: from here a wake cannot be lost, even one that
 * comes before the main thread blocks (Atomics.wait returns at once when the value moved on).
 */
export function markFrozen(state: FreezeState): void {
  Atomics.compareExchange(state, 0, RUNNING, FROZEN);
}

/**
 * Main thread, after markFrozen: blocks until the listener wakes it. `resumed: false` means stop.
 * It does not mark the state itself: a wake that came in between must not be undone.
 */
export function freezeOnSharedMemory(state: FreezeState): { resumed: boolean; frozenMs: number } {
  const started = Date.now();
  while (Atomics.load(state, 0) === FROZEN) Atomics.wait(state, 0, FROZEN);
  return { resumed: Atomics.load(state, 0) === RUNNING, frozenMs: Date.now() - started };
}

/** Listener thread: wakes a frozen main thread; does nothing to one that is not frozen. */
export function wake(state: FreezeState): boolean {
  const woken = Atomics.compareExchange(state, 0, FROZEN, RUNNING) === FROZEN;
  if (woken) Atomics.notify(state, 0);
  return woken;
}

/** Listener thread: ends a freeze for good (and any freeze to come). */
export function wakeToStop(state: FreezeState): void {
  Atomics.store(state, 0, STOPPING);
  Atomics.notify(state, 0);
}
