import 'server-only';
import pg from 'pg';
import { FencingError, isFencingError } from '../lib/model/core/errors';
import { closeSingleton, singleton } from '../lib/os/process-singletons';
import { jobsUrlFrom } from './jobs-database';
import { appRoleName, databaseNameOf } from './role-names';
import { ourSqlstate, SQLSTATE_MEANINGS } from './sqlstates';

export const POOL_MAX_CLIENTS = 10;
const CONNECT_TIMEOUT_MS = 5_000;
// Every session of ours commits synchronously, whatever the server's default: an accepted write
// or a grant lost in a crash would let an older token back in.
const SESSION_OPTIONS = '-c synchronous_commit=on';

export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new FencingError(
      'db_unavailable',
      'DATABASE_URL is not set: start the app with `npm start`, which provides a database, or set DATABASE_URL.',
    );
  }
  return url;
}

/** A client of its own, for callers that need a dedicated session (a second holder, LISTEN). */
export function newClient(
  url: string = databaseUrl(),
  extra: { keepAlive?: boolean; keepAliveInitialDelayMillis?: number } = {},
): pg.Client {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    options: SESSION_OPTIONS,
    ...extra,
  });
  // Without a listener a server restart surfaces as an uncaughtException.
  client.on('error', (error) => console.error('[db] client error:', error.message));
  return client;
}

/** The job queue's database (db/jobs-database.ts): the owner's URL with the database swapped. */
export function jobsDatabaseUrl(): string {
  return jobsUrlFrom(databaseUrl());
}

/**
 * A pool with this app's session settings (synchronous commit, the connect timeout), running as the
 * app role (db/roles.ts): the owner's URL, but only what the app server needs. `database: 'jobs'` is
 * the job queue's own database (db/jobs-database.ts), as the same app role.
 */
export function newPool(options: {
  max: number;
  applicationName?: string;
  allowExitOnIdle?: boolean;
  database?: 'lab' | 'jobs';
  /** Without a listener a server restart surfaces as an uncaughtException. */
  onIdleError: (error: Error) => void;
}): pg.Pool {
  const url = databaseUrl();
  const pool = new pg.Pool({
    connectionString: options.database === 'jobs' ? jobsUrlFrom(url) : url,
    max: options.max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    options: `${SESSION_OPTIONS} -c role=${appRoleName(databaseNameOf(url))}`,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
    ...(options.allowExitOnIdle ? { allowExitOnIdle: true } : {}),
  });
  pool.on('error', options.onIdleError);
  return pool;
}

const POOL = 'db.pool';

/** The process-wide pool (lib/os/process-singletons.ts: Next loads modules more than once per process). */
export function getPool(): pg.Pool {
  return singleton(
    POOL,
    () =>
      newPool({
        max: POOL_MAX_CLIENTS,
        onIdleError: (error) => console.error('[db] idle client error:', error.message),
      }),
    (pool) => pool.end(),
  );
}

const JOBS_POOL = 'db.jobs-pool';
const JOBS_POOL_MAX_CLIENTS = 4;

/**
 * The process-wide pool on the job queue's database, for adding jobs and reading the line (a job
 * runner has a pool of its own, lib/server/job-runner.ts). Made on first use.
 */
export function getJobsPool(): pg.Pool {
  return singleton(
    JOBS_POOL,
    () =>
      newPool({
        max: JOBS_POOL_MAX_CLIENTS,
        database: 'jobs',
        applicationName: 'fencing-lab jobs line',
        onIdleError: (error) => console.error('[db] idle jobs client error:', error.message),
      }),
    (pool) => pool.end(),
  );
}

/** Closes the process's pools: the lab database's and, if it was made, the job queue's. */
export const closePool = async (): Promise<void> => {
  await Promise.all([closeSingleton(POOL), closeSingleton(JOBS_POOL)]);
};

/** Anything that can run a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool | pg.PoolClient | pg.Client, 'query'>;

/** A dedicated connection a caller owns: one holder's own session, as a separate worker would have. */
export type Session = pg.Client | pg.PoolClient;

/**
 * Runs fn inside one transaction: on the caller's own session when given, otherwise on a pool
 * client that is released in `finally`.
 */
export async function withTransaction<T>(fn: (client: Session) => Promise<T>, session?: Session): Promise<T> {
  const pooled = session ? undefined : await connectOrExplain(getPool());
  const client = session ?? (pooled as pg.PoolClient);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A failed ROLLBACK leaves nothing to undo (the client is dropped); the first error is rethrown.
    await client.query('ROLLBACK').catch(() => undefined);
    throw toFencingError(error);
  } finally {
    pooled?.release();
  }
}

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EPIPE',
  'ETIMEDOUT',
  '57P01', // admin shutdown
  '57P02', // crash shutdown
  '57P03', // cannot connect now (starting up, recovering)
]);

/**
 * Connection failures become `db_unavailable`, and each SQLSTATE of ours its meaning (db/sqlstates.ts:
 * a stale generation `lab_reset`, …); everything else passes through unchanged.
 */
export function toFencingError(error: unknown): unknown {
  if (isFencingError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  // Ours (db/sqlstates.ts, one meaning each), on the error or on the one it wraps.
  const ours = ourSqlstate(error);
  if (ours === 'FL003') {
    return new FencingError('token_not_issued', 'that token was never issued by the write_epoch sequence', {
      cause: error,
    });
  }
  if (ours !== undefined) return new FencingError(SQLSTATE_MEANINGS[ours], message, { cause: error });
  if (
    (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) ||
    /Connection terminated|timeout exceeded when trying to connect|timeout expired|connect ECONNREFUSED|not queryable|terminating connection/.test(
      message,
    )
  ) {
    return FencingError.unreachable(error);
  }
  return error;
}

async function connectOrExplain(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw FencingError.unreachable(error);
  }
}
