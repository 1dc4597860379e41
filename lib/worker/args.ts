import { parseArgs } from 'node:util';
import { UsageError } from '../model/core/errors';
import {
  DEFAULT_WORKER_SETTINGS,
  labIdSchema,
  type WorkerSettings,
  workerSettingsSchema,
} from '../model/lab/lab-inputs';

/** The command line of `npm run worker`: parsed and checked with the same rules the UI's Start uses. */

export const WORKER_USAGE = `usage: npm run worker -- --lab <id> --name <name> [--db <worker url>] [--join-key <key>]
    [--lease-ttl-ms ${DEFAULT_WORKER_SETTINGS.leaseTtlMs}] [--renew-every-ms ${DEFAULT_WORKER_SETTINGS.renewEveryMs}] [--write-every-ms ${DEFAULT_WORKER_SETTINGS.writeEveryMs}]
    [--clock-slow-percent 0..90] (the drifting-clock labs only: this worker's clock runs that much slow)
    [--lease-clock own|database] (the drifting-clock labs only: judge the lease by its own clock or ask the database)
    [--retry-after-ms 200..60000] (the delayed-packet labs only: retry an unanswered write with the same token)
    [--write-value <text>] (the your-guard lab only: write this value every time)
    [--exec "<command>"] (your own lock client as this lane: it runs the command, hands it the connection in
      FENCING_LAB_URL, FENCING_LAB_LAB, FENCING_LAB_NAME, FENCING_LAB_INSTANCE, FENCING_LAB_KIND, beats for it, and freezes it
      for real when the lab pauses it: docs/protocol.md)
  --db is your worker line's URL, from the lab's page ("Run a worker from your own machine in this lab":
  a role and password of your own, on the lab server's PostgreSQL); it defaults to DATABASE_URL. A private
  lab also takes its --join-key, which the same command carries.`;

export type WorkerArgs = {
  databaseUrl: string;
  lab: string;
  settings: WorkerSettings;
  joinKey?: string;
  /** A program to run as this lane (lib/worker/exec-lane.ts). */
  exec?: string;
};

/** The longest command --exec takes. */
export const EXEC_MAX_CHARS = 1_000;

export function parseWorkerArgs(argv: string[], env: NodeJS.ProcessEnv): WorkerArgs {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        db: { type: 'string' },
        lab: { type: 'string' },
        name: { type: 'string' },
        'join-key': { type: 'string' },
        'lease-ttl-ms': { type: 'string' },
        'renew-every-ms': { type: 'string' },
        'write-every-ms': { type: 'string' },
        'clock-slow-percent': { type: 'string' },
        'lease-clock': { type: 'string' },
        'retry-after-ms': { type: 'string' },
        'write-value': { type: 'string' },
        exec: { type: 'string' },
      },
    }));
  } catch (error) {
    const message = (error as Error).message;
    const unknown = message.match(/Unknown option '([^']+)'/)?.[1];
    throw new UsageError(unknown ? `unknown option ${unknown}` : message);
  }
  const databaseUrl = values.db ?? env.DATABASE_URL;
  if (!databaseUrl) throw new UsageError('--db is required (or set DATABASE_URL)');
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new UsageError('--db must be a postgres:// URL');
  if (values.lab === undefined) throw new UsageError('--lab is required: the id of the lab to join');
  const lab = labIdSchema.safeParse(values.lab);
  if (!lab.success) throw new UsageError(`--lab: ${lab.error.issues[0]?.message ?? 'not a lab id'}`);
  if (values.name === undefined) throw new UsageError('--name is required: the name of this worker in the lab');
  const exec = values.exec;
  if (exec !== undefined && (exec.trim() === '' || exec.length > EXEC_MAX_CHARS)) {
    throw new UsageError(`--exec: a command of 1 to ${EXEC_MAX_CHARS} characters`);
  }
  const joinKey = values['join-key'];
  if (joinKey !== undefined && !/^[0-9a-f]{64}$/.test(joinKey)) {
    throw new UsageError('--join-key: the key a private lab shows its owner (64 hexadecimal digits)');
  }

  const number = (flag: string) => {
    const raw = values[flag];
    if (raw === undefined) return undefined;
    const parsed = Number(raw);
    return Number.isFinite(parsed) && raw.trim() !== '' ? parsed : raw;
  };
  const settings = workerSettingsSchema.safeParse({
    name: values.name,
    ...defined('leaseTtlMs', number('lease-ttl-ms')),
    ...defined('renewEveryMs', number('renew-every-ms')),
    ...defined('writeEveryMs', number('write-every-ms')),
    ...defined('clockSlowPercent', number('clock-slow-percent')),
    ...defined('leaseClock', values['lease-clock']),
    ...defined('retryAfterMs', number('retry-after-ms')),
    ...defined('writeValue', values['write-value']),
  });
  if (!settings.success) {
    const issue = settings.error.issues[0];
    const flags: Record<string, string> = {
      name: '--name',
      leaseTtlMs: '--lease-ttl-ms',
      renewEveryMs: '--renew-every-ms',
      writeEveryMs: '--write-every-ms',
      clockSlowPercent: '--clock-slow-percent',
      leaseClock: '--lease-clock',
      retryAfterMs: '--retry-after-ms',
      writeValue: '--write-value',
    };
    const flag = flags[String(issue?.path[0])] ?? 'options';
    throw new UsageError(`${flag}: ${issue?.message ?? 'invalid'}`);
  }
  return {
    databaseUrl,
    lab: lab.data,
    settings: settings.data,
    ...(joinKey ? { joinKey } : {}),
    ...(exec === undefined ? {} : { exec }),
  };
}

function defined<K extends string>(key: K, value: unknown): Partial<Record<K, unknown>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, unknown>);
}
