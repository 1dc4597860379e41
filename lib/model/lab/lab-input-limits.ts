import { WORKER_BOUNDS } from '../core/input-bounds';

/*
 * The limits of what a client may ask of the lab supervisor, without the schemas that check them
 * (lab-inputs.ts): the browser's controls read these, and so load no zod.
 */

export const MAX_WORKERS_PER_LAB = 8;
/** Workers this server runs at once, over all labs (remote workers run elsewhere and do not count). */
export const MAX_WORKERS_PER_SERVER = 40;
/** Private labs one browser may have open at once. */
export const MAX_PRIVATE_LABS_PER_OWNER = 3;
/** A pause's longest, in seconds: the database's bound too (lib/model/core/input-bounds.ts). */
export const MAX_PAUSE_SECONDS = WORKER_BOUNDS.pause_seconds_max;

export const DEFAULT_WORKER_SETTINGS = { leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 700 } as const;

/**
 * A chaos run's bounds and defaults, for the browser's form, `npm run scenario -- chaos` and the
 * server's check alike. Its workers all run in its lab, so at most a lab's worth.
 */
export const CHAOS_LIMITS = {
  seed: { min: 0, max: 2 ** 31 - 1, default: 42 },
  workers: { min: 2, max: MAX_WORKERS_PER_LAB, default: 5 },
  seconds: { min: 5, max: 600, default: 30 },
} as const;
