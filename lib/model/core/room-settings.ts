import { z } from 'zod';

/*
 * The room's settings that have a form (docs/running-a-room.md, Settings) as one schema: the port, the
 * trainer key's length and the numeric limits. `npm start` checks them before it starts anything and
 * refuses a value it cannot use, naming the setting, what it must be and what it got: a mistyped limit
 * must not fall back to its default in silence, nor fail the first request that reads it. The modules that read a setting keep its default; unset or empty means the default.
 */

const MAX_LIMIT = 999_999;

// No trimming: the modules that read these at run time take the value as it is (a space would pass
// here and fail there), so a value is usable only if it is usable as written.
function wholeNumber(name: string, min: number, max = MAX_LIMIT) {
  const what = `${name} must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(new RegExp(`^\\d{1,${String(max).length}}$`), what)
    .transform(Number)
    .refine((value) => value >= min && value <= max, what);
}

function positiveNumber(name: string, unit: string) {
  const what = `${name} must be a positive number of ${unit}`;
  return z
    .string()
    .regex(/^\d*\.?\d+$/, what)
    .transform(Number)
    .refine((value) => value > 0 && Number.isFinite(value), what);
}

/** A key chosen by hand must be long enough that guessing it (a few tries a second) is hopeless. */
export const MIN_TRAINER_KEY_CHARS = 12;

const SETTINGS = {
  PORT: wholeNumber('PORT', 1, 65_535),
  FENCING_LAB_TRAINER_KEY: z
    .string()
    .trim()
    .superRefine((key, ctx) => {
      if (key.length >= MIN_TRAINER_KEY_CHARS) return;
      ctx.addIssue({
        code: 'custom',
        message: `FENCING_LAB_TRAINER_KEY must be at least ${MIN_TRAINER_KEY_CHARS} characters (it has ${key.length}): anyone who can reach the server may guess at it; or leave it unset for a random key`,
      });
    }),
  FENCING_LAB_IDLE_MINUTES: positiveNumber('FENCING_LAB_IDLE_MINUTES', 'minutes'),
  FENCING_LAB_SHARED_IDLE_MINUTES: positiveNumber('FENCING_LAB_SHARED_IDLE_MINUTES', 'minutes'),
  FENCING_LAB_RETENTION_HOURS: positiveNumber('FENCING_LAB_RETENTION_HOURS', 'hours'),
  FENCING_LAB_MAX_PRIVATE_LABS: wholeNumber('FENCING_LAB_MAX_PRIVATE_LABS', 1),
  FENCING_LAB_OPENS_PER_ADDRESS: wholeNumber('FENCING_LAB_OPENS_PER_ADDRESS', 1),
  FENCING_LAB_MAX_FEEDS_PER_ADDRESS: wholeNumber('FENCING_LAB_MAX_FEEDS_PER_ADDRESS', 1),
  FENCING_LAB_MAX_FEEDS: wholeNumber('FENCING_LAB_MAX_FEEDS', 1),
  FENCING_LAB_MAX_GUARD_ATTACKS: wholeNumber('FENCING_LAB_MAX_GUARD_ATTACKS', 1, 64),
  FENCING_LAB_GUARD_ATTACKS_PER_MINUTE: wholeNumber('FENCING_LAB_GUARD_ATTACKS_PER_MINUTE', 1),
  FENCING_LAB_GUARD_REFUSALS_PER_MINUTE: wholeNumber('FENCING_LAB_GUARD_REFUSALS_PER_MINUTE', 1),
  FENCING_LAB_WARM_WORKERS: wholeNumber('FENCING_LAB_WARM_WORKERS', 0, 8),
} as const;

/** The settings this schema checks, by name. */
export const CHECKED_SETTINGS = Object.keys(SETTINGS) as (keyof typeof SETTINGS)[];

/**
 * What is wrong with the room's numeric settings in `env`, one sentence each ("FENCING_LAB_MAX_FEEDS must
 * be a whole number from 1 to 999999 (got "lots")"); empty when every one is unset, empty or usable as written.
 */
export function settingsProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  for (const name of CHECKED_SETTINGS) {
    const raw = env[name];
    // Empty is unset, as every reader takes it; the trainer key alone is trimmed, by every reader.
    if (raw === undefined || raw === '' || (name === 'FENCING_LAB_TRAINER_KEY' && raw.trim() === '')) continue;
    const parsed = SETTINGS[name].safeParse(raw);
    if (!parsed.success) {
      const why = parsed.error.issues[0]?.message ?? `${name} is not usable`;
      // A secret is never echoed back.
      problems.push(name === 'FENCING_LAB_TRAINER_KEY' ? why : `${why} (got ${JSON.stringify(raw)})`);
    }
  }
  return problems;
}
