import { parseArgs } from 'node:util';
import { z } from 'zod';
import { kindWhere } from '../labs/traits';
import { UsageError } from '../model/core/errors';
import { EXPLORABLE_LABS, EXPLORE_BOUNDS } from '../model/explore/explore-labs';
import { FAILOVER_LAB } from '../model/failover/failover-events';
import { LAB_IDS, type LabId } from '../model/lab/lab-kinds';

/** `npm run explore -- (--lab <lab> | --guard <file.sql>) [--holders N] [--writes N] [--depth N] [--renew] [--sync] [--json]`, checked with zod. */

export const EXPLORE_USAGE = `usage: npm run explore -- --lab <${EXPLORABLE_LABS.join('|')}> [--holders ${EXPLORE_BOUNDS.holders.default}] [--writes ${EXPLORE_BOUNDS.writes.default}] [--depth N] [--renew | --sync] [--json]
       npm run explore -- --guard <file.sql> [--holders N] [--writes N] [--depth N] [--renew] [--json]
  Every interleaving of the lab's story (holders A, B, C: acquire the lease, then write up to --writes
  times), each write run by the lab's real SQL in one transaction that is rolled back.
  --guard    your own guard statement, as the Your guard lab takes it (UPDATE guarded_row … $1 value,
             $2 token, $3 row id), explored in a private your-guard lab of its own, also with the
             tokens and values the statement names; the lab is closed after
  --holders  1 to 3 (default ${EXPLORE_BOUNDS.holders.default})     --writes  1 to 3 per holder (default ${EXPLORE_BOUNDS.writes.default})
  --depth    cut every path at this many steps (1 to ${EXPLORE_BOUNDS.depth.max}; default: no cut)
  --renew    careful holders: each renews its lease before every write after its first (a renewal
             refused, it writes no more) and gives the lease back after its last write
  --sync     the failover lab with synchronous replication (default: asynchronous, as its page starts);
             its story adds the standby catching up and the primary dying, the standby promoted
  --json     one JSON object: the counts, the seconds and the shortest counterexample
  Exit: 0 no interleaving breaks, 1 one does (the shortest is printed), 2 bad usage, 3 no database, 4 other failure.`;

/** The lab kind that runs a trainee's own guard statement (`--guard`). */
export const GUARD_LAB: LabId = kindWhere((t) => t.fencing === 'trainee-guard');

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
  renew: z.boolean().default(false),
  /** The failover lab's replication: synchronous (the default is asynchronous, the lab page's). */
  sync: z.boolean().default(false),
  /** A file a person names on their own command line: read by the command, never taken from a browser. */
  guard: z.string().min(1, '--guard names a file').optional(),
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
        renew: { type: 'boolean' },
        sync: { type: 'boolean' },
        guard: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    const message = (error as Error).message;
    const unknown = message.match(/Unknown option '([^']+)'/)?.[1];
    throw new UsageError(unknown ? `unknown option ${unknown}` : message.split('\n')[0]);
  }
  if (values.help) return 'help';
  if (values.guard !== undefined) {
    if (values.lab !== undefined && values.lab !== GUARD_LAB) {
      throw new UsageError('--guard explores your statement in a your-guard lab: leave --lab out');
    }
    values.lab = GUARD_LAB;
  }
  if (values.lab === undefined) throw new UsageError('--lab (or --guard) is required');
  if (values.lab === GUARD_LAB && values.guard === undefined) {
    throw new UsageError('--lab your-guard explores your own statement: give it with --guard <file.sql>');
  }
  const failover = values.lab === FAILOVER_LAB;
  if (values.sync && !failover) throw new UsageError(`--sync is the ${FAILOVER_LAB} lab's: its pair's replication`);
  if (values.renew && failover) {
    throw new UsageError(`--renew: the ${FAILOVER_LAB} lab's holders do not renew their leases`);
  }
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
