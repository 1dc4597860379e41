import { parseArgs } from 'node:util';
import { z } from 'zod';
import { UsageError } from '../model/core/errors';
import { CHAOS_LIMITS } from '../model/lab/lab-input-limits';

/** `npm run soak -- --minutes N [--seed S]`, checked with zod: a bad command line is told, not guessed. */

export const SOAK_USAGE = `usage: npm run soak -- --minutes N [--seed S]
  --minutes  how long the soak runs in all, shared by every lab (0.5 to 1440; decimals allowed); a lab
             whose judgement is not settled at the end of its share goes on, 8 s at a time, 24 s at most
  --seed     the first lab's seed; each next lab takes the next one (default 1)`;

const soakArgsSchema = z.strictObject({
  minutes: z.coerce
    .number({ error: '--minutes must be a number' })
    .min(0.5, '--minutes must be at least 0.5')
    .max(1440, '--minutes must be at most 1440 (a day)'),
  seed: z.coerce
    .number({ error: '--seed must be a whole number' })
    .int('--seed must be a whole number')
    .min(CHAOS_LIMITS.seed.min, `--seed must be at least ${CHAOS_LIMITS.seed.min}`)
    // Each lab takes the next seed: the last one must still be a seed.
    .max(CHAOS_LIMITS.seed.max - 100, `--seed must be at most ${CHAOS_LIMITS.seed.max - 100}`)
    .default(1),
});

export type SoakArgs = z.infer<typeof soakArgsSchema>;

export function parseSoakArgs(argv: string[]): SoakArgs | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { minutes: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    const message = (error as Error).message;
    const unknown = message.match(/Unknown option '([^']+)'/)?.[1];
    throw new UsageError(unknown ? `unknown option ${unknown}` : message.split('\n')[0]);
  }
  if (values.help) return 'help';
  if (values.minutes === undefined) throw new UsageError('--minutes is required');
  // Blank text would coerce to 0 (or pass as a seed of 0): refused as not a number.
  for (const flag of ['minutes', 'seed'] as const) {
    const raw = values[flag];
    if (typeof raw === 'string' && !/^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(raw)) {
      throw new UsageError(`--${flag} must be a number, got ${JSON.stringify(raw)}`);
    }
  }
  const parsed = soakArgsSchema.safeParse({
    minutes: values.minutes,
    ...(values.seed === undefined ? {} : { seed: values.seed }),
  });
  if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'bad arguments');
  return parsed.data;
}
