import { parseArgs } from 'node:util';
import { z } from 'zod';
import { UsageError } from '../model/core/errors';
import { EXPLORABLE_LABS, EXPLORE_BOUNDS } from '../model/explore/explore-labs';
import { LAB_IDS, type LabId } from '../model/lab/lab-kinds';

/** `npm run explore -- --lab <lab> [--holders N] [--writes N] [--depth N] [--json]`, checked with zod. */

export const EXPLORE_USAGE = `usage: npm run explore -- --lab <${EXPLORABLE_LABS.join('|')}> [--holders ${EXPLORE_BOUNDS.holders.default}] [--writes ${EXPLORE_BOUNDS.writes.default}] [--depth N] [--json]
  Every interleaving of the lab's story (holders A, B, C: acquire the lease, then write up to --writes
  times), each write run by the lab's real SQL in one transaction that is rolled back.
  --holders  1 to 3 (default ${EXPLORE_BOUNDS.holders.default})     --writes  1 to 3 per holder (default ${EXPLORE_BOUNDS.writes.default})
  --depth    cut every path at this many steps (1 to ${EXPLORE_BOUNDS.depth.max}; default: no cut)
  --json     one JSON object: the counts, the seconds and the shortest counterexample
  Exit: 0 no interleaving breaks, 1 one does (the shortest is printed), 2 bad usage, 3 no database, 4 other failure.`;

const whole = (flag: string, { min, max }: { min: number; max: number }) =>
  z.coerce
    .number({ error: `--${flag} must be a whole number` })
    .int(`--${flag} must be a whole number`)
    .min(min, `--${flag} must be at least ${min}`)
    .max(max, `--${flag} must be at most ${max}`);

const exploreArgsSchema = z.strictObject({
  lab: z.enum(LAB_IDS as unknown as [LabId, ...LabId[]], {
    error: (issue) => `--lab must be one of ${EXPLORABLE_LABS.join(', ')}, got ${JSON.stringify(issue.input)}`,
  }),
  holders: whole('holders', EXPLORE_BOUNDS.holders).default(EXPLORE_BOUNDS.holders.default),
  writes: whole('writes', EXPLORE_BOUNDS.writes).default(EXPLORE_BOUNDS.writes.default),
  depth: whole('depth', EXPLORE_BOUNDS.depth).optional(),
  json: z.boolean().default(false),
});

export type ExploreArgs = z.infer<typeof exploreArgsSchema>;

export function parseExploreArgs(argv: string[]): ExploreArgs | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        lab: { type: 'string' },
        holders: { type: 'string' },
        writes: { type: 'string' },
        depth: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    const message = (error as Error).message;
    const unknown = message.match(/Unknown option '([^']+)'/)?.[1];
    throw new UsageError(unknown ? `unknown option ${unknown}` : message.split('\n')[0]);
  }
  if (values.help) return 'help';
  if (values.lab === undefined) throw new UsageError('--lab is required');
  for (const flag of ['holders', 'writes', 'depth'] as const) {
    const raw = values[flag];
    // Blank text would coerce to 0: refused as not a number.
    if (typeof raw === 'string' && !/^\s*\d+\s*$/.test(raw)) {
      throw new UsageError(`--${flag} must be a whole number, got ${JSON.stringify(raw)}`);
    }
  }
  const parsed = exploreArgsSchema.safeParse(
    Object.fromEntries(Object.entries(values).filter(([key, value]) => key !== 'help' && value !== undefined)),
  );
  if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'bad arguments');
  return parsed.data;
}
