import { parseArgs } from 'node:util';
import { z } from 'zod';
import { UsageError } from '../lib/model/core/errors';
import { type BenchSizes, FULL_SIZES, NARRATED_LABS, QUICK_SIZES } from './sizes';

/** The command line of `npm run bench`: which benchmarks, and at what size. */

export const BENCHES = [
  'throughput',
  'takeover',
  'chaos',
  'busy-labs',
  'latency',
  'fps',
  'history',
  'bundle',
  'room',
  'faults',
  'job-queue',
  'classroom',
  'narration',
  'explore',
] as const;
export type Bench = (typeof BENCHES)[number];
/** Without names: all but those that take minutes (room, faults, classroom, narration), which run by name or with --quick. */
const BY_DEFAULT: readonly Bench[] = [
  'throughput',
  'takeover',
  'chaos',
  'busy-labs',
  'latency',
  'fps',
  'history',
  'bundle',
  'explore',
];

/**
 * Only by name, even with --quick: none now. (job-queue was, while it measured a choice, pg-boss against
 * graphile-worker, at 40 s; it measures graphile-worker alone since issue 37, and `--quick` runs it.)
 */
const BY_NAME_ONLY: readonly Bench[] = [];

export const BENCH_USAGE = `usage: npm run bench [-- <${BENCHES.join('|')}> …] [--quick] [--minutes N] [--crashes N] [--trainees N] [--servers K] [--histories N] [--labs L,…] [--help]
  no names: ${BY_DEFAULT.join(', ')} (room, faults, classroom and narration take minutes: name them)
  --quick    every benchmark (or those named) at its small size (bench/sizes.ts), to check that each runs
  --minutes  how long the room runs (default ${FULL_SIZES.room.minutes}, quick ${QUICK_SIZES.room.minutes})
  --crashes  how many times faults kills the database (default ${FULL_SIZES.faults.crashes}, quick ${QUICK_SIZES.faults.crashes})
  --trainees how many trainees submit a guard in classroom (default ${FULL_SIZES.classroom.trainees}, quick ${QUICK_SIZES.classroom.trainees})
  --servers  how many app servers share its database (default ${FULL_SIZES.classroom.servers}, quick ${QUICK_SIZES.classroom.servers})
  --histories how many generated histories per lab narration checks (default ${FULL_SIZES.narration.historiesPerLab}, quick ${QUICK_SIZES.narration.historiesPerLab})
  --labs     which labs narration checks, by id, comma-separated (default all: ${NARRATED_LABS.join(', ')})`;

export type BenchArgs = { selected: ReadonlySet<Bench>; quick: boolean; sizes: BenchSizes };

const argsSchema = z.object({
  names: z.array(z.enum(BENCHES, { error: (issue) => `unknown benchmark ${JSON.stringify(issue.input)}` })),
  quick: z.boolean(),
  minutes: z.coerce
    .number({ error: '--minutes must be a number' })
    .positive('--minutes must be more than 0')
    .max(24 * 60, '--minutes must be at most a day')
    .optional(),
  trainees: z.coerce
    .number({ error: '--trainees must be a number' })
    .int('--trainees must be a whole number')
    .min(1, '--trainees must be at least 1')
    .max(300, '--trainees must be at most 300')
    .optional(),
  servers: z.coerce
    .number({ error: '--servers must be a number' })
    .int('--servers must be a whole number')
    .min(1, '--servers must be at least 1')
    .max(4, '--servers must be at most 4')
    .optional(),
  histories: z.coerce
    .number({ error: '--histories must be a number' })
    .int('--histories must be a whole number')
    .min(1, '--histories must be at least 1')
    .max(10_000_000, '--histories must be at most 10000000')
    .optional(),
  labs: z
    .string()
    .transform((list) => list.split(','))
    .pipe(
      z.array(z.enum(NARRATED_LABS, { error: (issue) => `--labs: unknown lab ${JSON.stringify(issue.input)}` })).min(1),
    )
    .optional(),
  crashes: z.coerce
    .number({ error: '--crashes must be a number' })
    .int('--crashes must be a whole number')
    .min(1, '--crashes must be at least 1')
    .max(100, '--crashes must be at most 100')
    .optional(),
});

export function parseBenchArgs(argv: string[]): BenchArgs {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = message.match(/Unknown option '([^']+)'/)?.[1];
    throw new UsageError(unknown ? `unknown option ${unknown}` : message);
  }
  const { values, positionals } = parsed;
  const checked = argsSchema.safeParse({
    names: positionals,
    quick: values.quick ?? false,
    minutes: values.minutes,
    crashes: values.crashes,
    trainees: values.trainees,
    servers: values.servers,
    histories: values.histories,
    labs: values.labs,
  });
  if (!checked.success) throw new UsageError(checked.error.issues[0]?.message ?? 'invalid arguments');
  const { names, quick, minutes, crashes, trainees, servers, histories, labs } = checked.data;
  const base = quick ? QUICK_SIZES : FULL_SIZES;
  const sizes: BenchSizes = {
    ...base,
    room: { ...base.room, minutes: minutes ?? base.room.minutes },
    faults: { crashes: crashes ?? base.faults.crashes },
    classroom: {
      ...base.classroom,
      trainees: trainees ?? base.classroom.trainees,
      servers: servers ?? base.classroom.servers,
    },
    narration: { ...base.narration, historiesPerLab: histories ?? base.narration.historiesPerLab, labs },
  };
  const everyOne = BENCHES.filter((name) => !BY_NAME_ONLY.includes(name));
  const selected = new Set<Bench>(names.length ? names : quick ? everyOne : BY_DEFAULT);
  return { selected, quick, sizes };
}

const OPTIONS = {
  quick: { type: 'boolean' },
  minutes: { type: 'string' },
  crashes: { type: 'string' },
  trainees: { type: 'string' },
  servers: { type: 'string' },
  histories: { type: 'string' },
  labs: { type: 'string' },
} as const;
