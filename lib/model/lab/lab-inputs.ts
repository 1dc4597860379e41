import { z } from 'zod';
import { takesTraineeGuard } from '../../labs/traits';
import { FencingError } from '../core/errors';
import { WORKER_BOUNDS, WORKER_NAME_MAX_CHARS, WORKER_NAME_PATTERN, WORKER_NAME_WORDS } from '../core/input-bounds';
import { parseInput } from '../core/inputs';
import {
  CHAOS_LIMITS,
  DEFAULT_WORKER_SETTINGS,
  MAX_PAUSE_SECONDS,
  MAX_PRIVATE_LABS_PER_OWNER,
  MAX_WORKERS_PER_LAB,
  MAX_WORKERS_PER_SERVER,
} from './lab-input-limits';
import { PRIVATE_LAB_ID_PATTERN } from './lab-instance';
import { hasDriftingClock, hasPacketRelay, type LabId, PRIVATE_LAB_KINDS, WORKER_LAB_IDS } from './lab-kinds';
import { LEASE_CLOCKS, MAX_CLOCK_SLOW_PERCENT } from './worker-clock';

/** What a client may ask of the lab supervisor, and the limits, as zod schemas (no pg, no process). */

// The limits live in lab-input-limits.ts (the browser's controls read them there, without zod).
export {
  CHAOS_LIMITS,
  DEFAULT_WORKER_SETTINGS,
  MAX_PAUSE_SECONDS,
  MAX_PRIVATE_LABS_PER_OWNER,
  MAX_WORKERS_PER_LAB,
  MAX_WORKERS_PER_SERVER,
};

// The bounds are the database's too (lib/model/core/input-bounds.ts, fl_bound in SQL): one set.
const B = WORKER_BOUNDS;
const LEASE_TTL_BOUNDS_MS = { min: B.lease_ttl_ms_min, max: B.lease_ttl_ms_max } as const;
const RENEW_EVERY_BOUNDS_MS = { min: B.renew_every_ms_min, max: B.renew_every_ms_max } as const;
const WRITE_EVERY_BOUNDS_MS = { min: B.write_every_ms_min, max: B.write_every_ms_max } as const;
const WRITE_VALUE_MAX_CHARS = B.write_value_max_chars;
export const RETRY_AFTER_BOUNDS_MS = { min: B.retry_after_ms_min, max: B.retry_after_ms_max } as const;

/** A kind a private lab may be: a lab with workers, or "your guard" (the failover lab has its own controls). */
const labKindSchema = z.enum(PRIVATE_LAB_KINDS, { error: `lab kind must be one of: ${PRIVATE_LAB_KINDS.join(', ')}` });

/** A lab by its id: a shared lab ("fenced") or a private one ("p-…"). Whether it exists is the server's to say. */
export const labIdSchema = z
  .string({ error: 'lab must be a lab id' })
  .refine(
    (id) => (WORKER_LAB_IDS as readonly string[]).includes(id) || PRIVATE_LAB_ID_PATTERN.test(id),
    `lab must be one of: ${WORKER_LAB_IDS.join(', ')}, or a private lab's id (p-…)`,
  );

const ms = (what: string, bounds: { min: number; max: number }) =>
  z
    .number({ error: `${what} must be a number of milliseconds` })
    .int(`${what} must be a whole number of milliseconds`)
    .min(bounds.min, `${what} must be at least ${bounds.min} ms`)
    .max(bounds.max, `${what} must be at most ${bounds.max} ms`);

const workerNameSchema = z
  .string({ error: 'name must be text' })
  .trim()
  .min(1, 'name must not be empty')
  .max(WORKER_NAME_MAX_CHARS, WORKER_NAME_WORDS.length)
  // As worker_join (db/functions/fl_worker_name_refusal.sql), in the same words: a lane's label must
  // read as what it is, and outside ASCII too many letters look like A (Lisu, Cherokee, a small capital).
  .regex(WORKER_NAME_PATTERN, WORKER_NAME_WORDS.letters)
  .refine((name) => !name.includes('  '), WORKER_NAME_WORDS.spaces)
  // Workers are also found by their id (w1, w2, …): a name like that would hide another worker.
  .refine((name) => !/^w\d+$/i.test(name), WORKER_NAME_WORDS.workerId);

export const workerSettingsSchema = z
  .object({
    name: workerNameSchema,
    leaseTtlMs: ms('lease TTL', LEASE_TTL_BOUNDS_MS).default(DEFAULT_WORKER_SETTINGS.leaseTtlMs),
    renewEveryMs: ms('renew interval', RENEW_EVERY_BOUNDS_MS).default(DEFAULT_WORKER_SETTINGS.renewEveryMs),
    writeEveryMs: ms('write interval', WRITE_EVERY_BOUNDS_MS).default(DEFAULT_WORKER_SETTINGS.writeEveryMs),
    /**
     * The drifting-clock labs' setting: how slow this worker's clock runs, in whole percent (absent:
     * it keeps time). Only those labs' workers have a drifting clock; the server refuses it elsewhere.
     */
    clockSlowPercent: z
      .number({ error: 'clock drift must be a number (percent slow)' })
      .int('clock drift must be a whole percentage')
      .min(0, 'clock drift must be at least 0 % slow')
      .max(MAX_CLOCK_SLOW_PERCENT, `clock drift must be at most ${MAX_CLOCK_SLOW_PERCENT} % slow`)
      .optional(),
    /**
     * The drifting-clock labs' other setting: whose clock the worker judges its lease by before each
     * write, its own (absent: the lease client as the lab teaches it) or the database's (it asks).
     */
    leaseClock: z
      .enum(LEASE_CLOCKS, { error: `a worker judges its lease by one of: ${LEASE_CLOCKS.join(', ')}` })
      .optional(),
    /**
     * The delayed-packet labs' setting: the worker's client gives up on a write that has not been
     * answered after this long, and sends it again, with the same token, on a new connection (absent:
     * it waits). The server refuses it in any other lab.
     */
    retryAfterMs: ms('client timeout', RETRY_AFTER_BOUNDS_MS).optional(),
    /**
     * The your-guard lab's setting: the value this worker writes every time (absent: its name and a
     * count). The attack on a guard sends the constants of the trainee's statement (lib/model/guard/guard-probes.ts).
     */
    writeValue: z
      .string({ error: 'a write value must be text' })
      .min(1, 'a write value must not be empty')
      .max(WRITE_VALUE_MAX_CHARS, `a write value is at most ${WRITE_VALUE_MAX_CHARS} characters`)
      .optional(),
  })
  .strict()
  .refine((s) => s.renewEveryMs < s.leaseTtlMs, {
    message: 'renew interval must be shorter than the lease TTL, or the lease lapses between renewals',
    path: ['renewEveryMs'],
  });

export type WorkerSettings = z.output<typeof workerSettingsSchema>;

/**
 * A worker's settings for a lab of this kind, as a start and a restart both take them: the schema's
 * rules, and a clock drift only in a drifting-clock lab (fenced or not). Throws `invalid_input` with the reason.
 */
export function workerSettingsForLab(kind: LabId, raw: unknown): WorkerSettings {
  const settings = parseInput(workerSettingsSchema, raw);
  if (settings.clockSlowPercent !== undefined && !hasDriftingClock(kind)) {
    throw new FencingError('invalid_input', 'only the drifting-clock labs have a clock drift setting');
  }
  if (settings.leaseClock !== undefined && !hasDriftingClock(kind)) {
    throw new FencingError('invalid_input', 'only the drifting-clock labs have a lease clock setting');
  }
  if (settings.writeValue !== undefined && !takesTraineeGuard(kind)) {
    throw new FencingError('invalid_input', 'only the your-guard lab has a write value setting');
  }
  if (settings.retryAfterMs !== undefined && !hasPacketRelay(kind)) {
    throw new FencingError('invalid_input', 'only the delayed-packet labs have a client timeout and retry setting');
  }
  return settings;
}

/** A worker is named by the lab's own id ("w1") or its name; never by a process id. */
const workerRefSchema = z
  .string({ error: 'worker must be a worker id or name' })
  .trim()
  .min(1, 'worker must not be empty')
  .max(WORKER_NAME_MAX_CHARS, 'no such worker');

export const startWorkerInput = z.object({ lab: labIdSchema, settings: workerSettingsSchema }).strict();

export const workerActionInput = z.object({ lab: labIdSchema, worker: workerRefSchema }).strict();

const pauseSeconds = z
  .number({ error: 'pause length must be a number of seconds' })
  .positive('pause length must be more than 0 seconds')
  .max(MAX_PAUSE_SECONDS, `pause length must be at most ${MAX_PAUSE_SECONDS} seconds`);

const pausePlanSchema = z.discriminatedUnion(
  'mode',
  [
    z.object({ mode: z.literal('for'), seconds: pauseSeconds }).strict(),
    z.object({ mode: z.literal('until-resumed') }).strict(),
    z.object({ mode: z.literal('critical-window'), seconds: pauseSeconds.optional() }).strict(),
  ],
  { error: 'pause mode must be "for", "until-resumed" or "critical-window"' },
);

export type PausePlan = z.output<typeof pausePlanSchema>;

export const pauseWorkerInput = z.object({ lab: labIdSchema, worker: workerRefSchema, plan: pausePlanSchema }).strict();

/** A command that names only its lab (reset, list the workers). */
export const labInput = z.object({ lab: labIdSchema }).strict();

/** The walkthrough step (from 0) the trainer shows now; the command checks it against the lab's walkthrough. */
export const shownStepInput = z
  .object({
    lab: labIdSchema,
    step: z
      .number({ error: 'step must be a number' })
      .int('step must be a whole number')
      .min(0, 'step must be 0 or more')
      .max(99, 'step must be at most 99'),
  })
  .strict();

export const openPrivateLabInput = z.object({ kind: labKindSchema }).strict();

const TRAINER_KEY_MAX_CHARS = 200;
export const trainerKeyInput = z
  .object({
    key: z
      .string({ error: 'the trainer key must be text' })
      .trim()
      .min(1, 'enter the trainer key')
      .max(TRAINER_KEY_MAX_CHARS, 'that is not the trainer key'),
  })
  .strict();

export const chaosInput = z
  .object({
    lab: labIdSchema,
    seed: z
      .number({ error: 'seed must be a number' })
      .int('seed must be a whole number')
      .min(CHAOS_LIMITS.seed.min, `seed must be at least ${CHAOS_LIMITS.seed.min}`)
      .max(CHAOS_LIMITS.seed.max, 'seed is too large'),
    workers: z
      .number({ error: 'workers must be a number' })
      .int('workers must be a whole number')
      .min(CHAOS_LIMITS.workers.min, `a chaos run needs at least ${CHAOS_LIMITS.workers.min} workers`)
      .max(CHAOS_LIMITS.workers.max, `a lab runs at most ${CHAOS_LIMITS.workers.max} workers`),
    seconds: z
      .number({ error: 'length must be a number of seconds' })
      .int('length must be whole seconds')
      .min(CHAOS_LIMITS.seconds.min, `a chaos run lasts at least ${CHAOS_LIMITS.seconds.min} s`)
      .max(CHAOS_LIMITS.seconds.max, `a chaos run lasts at most ${CHAOS_LIMITS.seconds.max} s`),
  })
  .strict();
