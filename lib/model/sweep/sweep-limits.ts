import { MAX_CLOCK_SLOW_PERCENT } from '../lab/worker-clock';

/*
 * The sweep's bounds, for the browser's form, `npm run scenario -- sweep` and the server's check
 * alike (the zod schema is in sweep-grid.ts; this module loads no zod). Every cell is a real run of
 * two worker processes in a lab of its own, on a machine of 2 CPUs shared with the room: the grid
 * and the cells run at once are kept small.
 */

export const SWEEP_LIMITS = {
  /** How long A freezes in its critical window. */
  pauseMs: { min: 100, max: 10_000 },
  /** The lease TTL of both workers (their renew and write intervals follow from it). */
  ttlMs: { min: 500, max: 10_000 },
  /** How slow A's clock runs; above 0 the cell runs in the drifting-clock labs. */
  driftPercent: { min: 0, max: MAX_CLOCK_SLOW_PERCENT },
  /** Values on the pause and TTL axes. */
  valuesPerAxis: 6,
  /** Values on the drift axis. */
  drifts: 3,
  /** Points of the grid (pauses × TTLs × drifts): each runs twice, without and with fencing. */
  points: 24,
  /** Runs (a point in one lab) going on at once. */
  concurrency: { min: 1, max: 2, default: 2 },
} as const;

export const DEFAULT_SWEEP = { pausesMs: [200, 800, 2_000], ttlsMs: [500, 1_500], driftsPercent: [0] } as const;
