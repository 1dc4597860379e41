import 'server-only';
import { createHash } from 'node:crypto';
import type pg from 'pg';

/*
 * The room's job queue lives in a database of its own on the same PostgreSQL server (issue 33): the
 * worker role may connect to the lab's database and send any NOTIFY there (NOTIFY cannot be revoked),
 * and graphile-worker obeys a `worker:migrate` notification on its own database by shutting its pool
 * down. In the jobs database PUBLIC has no CONNECT: only its owner and the app role get in, so no
 * trainee's session reaches a job runner. Pure names and the owner's chores, no pool: db/pool.ts
 * connects to it, db/job-queue-schema.ts installs it.
 */

/**
 * A row just added to the lab's database whose job is added next, in the job queue's database
 * (db/jobs-database.ts): the two cannot commit together, so the row comes first and its job has a key
 * made from it. A crash between the two leaves a row without a job, which the job runners' repair ends
 * in words (failAbandonedGuardAttempts, finishSweepsWithoutJobs in db/sweeps.ts); not before this long
 * after the row was written, so that a row whose job is on its way is not judged abandoned.
 */
export const JOB_ADD_GRACE_MS = 30_000;

const MAX_IDENTIFIER_BYTES = 63;
const SUFFIX = '_jobs';

/**
 * The jobs database of the lab database `labDatabase`: `<lab database>_jobs`, or, when that would pass
 * PostgreSQL's 63-byte limit for names (it would cut it silently, and two labs could share one), the
 * name cut to fit with a digest of the whole.
 */
export function jobsDatabaseName(labDatabase: string): string {
  const whole = `${labDatabase}${SUFFIX}`;
  if (Buffer.byteLength(whole, 'utf8') <= MAX_IDENTIFIER_BYTES) return whole;
  const digest = createHash('md5').update(labDatabase, 'utf8').digest('hex').slice(0, 8);
  const room = MAX_IDENTIFIER_BYTES - Buffer.byteLength(`_${digest}${SUFFIX}`, 'utf8');
  let cut = '';
  // By code point: a cut inside a character would not be valid UTF-8.
  for (const char of labDatabase) {
    if (Buffer.byteLength(cut + char, 'utf8') > room) break;
    cut += char;
  }
  return `${cut}_${digest}${SUFFIX}`;
}

/** The lab database's URL with the jobs database in its place (same server, same role, same options). */
export function jobsUrlFrom(labUrl: string): string {
  const url = new URL(labUrl);
  const lab = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!lab) throw new Error('the database URL names no database');
  url.pathname = `/${encodeURIComponent(jobsDatabaseName(lab))}`;
  return url.toString();
}

/** What an operator reads when the owner may not create the jobs database. */
export function jobsDatabaseAdvice(jobs: string, owner: string): string {
  const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return (
    `the job queue needs a database of its own, ${q(jobs)}, on the same PostgreSQL server, and the role ` +
    `${q(owner)} may not create it: as a superuser, either run ALTER ROLE ${q(owner)} CREATEDB, or ` +
    `CREATE DATABASE ${q(jobs)} OWNER ${q(owner)} (docs/running-a-room.md, "Your own PostgreSQL")`
  );
}

/**
 * As the owner (`owner` connected to the lab database): creates the jobs database if missing, checks
 * the owner owns it, and keeps everyone out but the owner and the app role (REVOKE CONNECT FROM PUBLIC,
 * CONNECT for the app role). Returns the database's name. Callers serialise it (migrate's lock).
 */
export async function ensureJobsDatabase(owner: pg.Client, labDatabase: string, appRole: string): Promise<string> {
  const jobs = jobsDatabaseName(labDatabase);
  const name = owner.escapeIdentifier(jobs);
  const { rows } = await owner.query<{ me: string; owned: boolean | null; superuser: boolean }>(
    `SELECT current_user AS me,
            (SELECT d.datdba = r.oid FROM pg_database d WHERE d.datname = $1) AS owned,
            r.rolsuper AS superuser
       FROM pg_roles r WHERE r.rolname = current_user`,
    [jobs],
  );
  const me = rows[0]?.me ?? 'the owner';
  if (rows[0]?.owned === null || rows[0]?.owned === undefined) {
    try {
      await owner.query(`CREATE DATABASE ${name}`);
    } catch (error) {
      const code = (error as { code?: string }).code;
      // Another start created it between the look and the create: it is there.
      if (code !== '42P04' && code !== '23505') {
        if (code === '42501') throw new Error(jobsDatabaseAdvice(jobs, me), { cause: error });
        throw error;
      }
    }
  } else if (!rows[0]?.owned && !rows[0]?.superuser) {
    throw new Error(
      `the job queue's database "${jobs}" exists but is not owned by "${me}", which installs the queue in it and ` +
        `decides who may connect: as a superuser, run ALTER DATABASE "${jobs}" OWNER TO "${me}"`,
    );
  }
  await owner.query(`REVOKE ALL ON DATABASE ${name} FROM PUBLIC`);
  await owner.query(`GRANT CONNECT ON DATABASE ${name} TO ${owner.escapeIdentifier(appRole)}`);
  return jobs;
}
