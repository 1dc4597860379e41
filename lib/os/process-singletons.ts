/*
 * The process's one of each: the database pools, the event feed, the supervisor, the job runner, the timers of
 * the background jobs, the counters that limit a room. Next loads a module more than once per process (each
 * route and instrumentation.ts may have its own copy), so a module's own `let` would make several of them:
 * they live in one registry on globalThis instead, by name, each with how it is closed if it holds anything
 * (connections, processes, timers). closeAll closes them in the reverse order of their creation: what was made
 * later may use what was made before it (the supervisor the pool), never the other way round.
 * Imports nothing of the project, so that every layer, db/ included, may use it.
 */

type Entry = { value: unknown; close: (() => unknown) | undefined };

const REGISTRY = Symbol.for('fencing-lab.process-singletons');
type WithRegistry = typeof globalThis & { [REGISTRY]?: Map<string, Entry> };

/** By name, in the order of creation (a Map keeps the order of insertion). */
function registry(): Map<string, Entry> {
  const holder = globalThis as WithRegistry;
  holder[REGISTRY] ??= new Map();
  return holder[REGISTRY];
}

/**
 * The process's one `name`: made by `create` on the first call (a throw makes none, the next call tries again),
 * the same value after. `close` is how closeAll and closeSingleton end it.
 */
export function singleton<T>(name: string, create: () => T, close?: (value: T) => unknown): T {
  const known = registry().get(name);
  if (known) return known.value as T;
  const value = create();
  registry().set(name, { value, close: close && (() => close(value)) });
  return value;
}

/** The process's `name` if it was made, without making it. */
export function existingSingleton<T>(name: string): T | undefined {
  return registry().get(name)?.value as T | undefined;
}

/**
 * Closes `name`, if it was made, and forgets it: the next `singleton(name, …)` makes a new one. It is forgotten
 * at once, before the returned promise settles, and its close called at once too (only awaited after).
 */
export async function closeSingleton(name: string): Promise<void> {
  const entry = registry().get(name);
  if (!entry) return;
  registry().delete(name);
  await entry.close?.();
}

/**
 * Closes every singleton, the last made first, one at a time, and forgets them. One that a close makes again
 * (a shutdown that queries the pool closed before it) is closed too. A close that fails does not keep the
 * others open: the failures are thrown together at the end.
 */
export async function closeAll(): Promise<void> {
  const failures: unknown[] = [];
  for (let last = [...registry().keys()].at(-1); last !== undefined; last = [...registry().keys()].at(-1)) {
    try {
      await closeSingleton(last);
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0)
    throw new AggregateError(failures, `${failures.length} process singleton(s) failed to close`);
}
