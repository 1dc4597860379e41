import 'server-only';
import { getJobsPool, type Queryable } from './pool';

/*
 * Liveness for the job queue (issue 24; 0043_guard_attack_jobs.sql): graphile-worker records which
 * pool locked a job but not whether that pool still lives (a dead one's jobs stay locked for 4 hours).
 * Every app server beats every 500 ms with its pools' ids and its slots. The table lives beside the
 * library's schema in the job queue's database (db/job-queue-schema.ts), so a dead peer is forgotten
 * and its jobs unlocked in one statement; every query here runs there.
 */

export type Beat = {
  server: string;
  poolIds: readonly string[];
  slots: number;
  staleMs: number;
  /**
   * Judge peers: forget each whose beat is older than `staleMs` and unlock its pools' jobs, in the same
   * statement (a survivor dying halfway cannot leave them locked). Only once this server has itself
   * beaten for `staleMs` since its last failed beat: after the database was away, every beat is old.
   */
  judge: boolean;
  /** The jobs this server runs now: its pools' other locks are left over (a failure it could not record). */
  activeJobIds: readonly string[];
};

/*
 * The one place the product writes graphile-worker's private tables (db/job-queue-surface.test.ts
 * pins the columns, and lists this use with why): a live pool's lock on a job it no longer runs (its
 * failure could not be recorded while the database was away) would hold the job, and its named queue,
 * for 4 hours. No public function releases it: force_unlock_workers is for dead pools only ("Do NOT
 * pass any alive worker ids"), and the admin functions skip locked jobs. So the beat frees the job and
 * its queue as the library's own failure would have (failJobs: the job, then the queue its pool locked).
 */

/** Left-over locks of this server's own pools are released after this long (a job is registered within ms). */
const OWN_LEFTOVER_MS = 10_000;

/** Beats; returns the peers it forgot. */
export async function beatJobServer(beat: Beat, jobs: Queryable = getJobsPool()): Promise<string[]> {
  const { rows } = await jobs.query<{ id: string }>(
    `WITH beat AS (
       INSERT INTO job_servers (id, pool_ids, slots) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET beat_at = clock_timestamp(), pool_ids = EXCLUDED.pool_ids, slots = EXCLUDED.slots
     ), own AS (
       UPDATE graphile_worker._private_jobs SET locked_at = NULL, locked_by = NULL
        WHERE locked_by = ANY($2) AND NOT (id::text = ANY($6))
          AND locked_at < clock_timestamp() - make_interval(secs => $7::float8 / 1000)
       RETURNING job_queue_id
     ), own_queues AS (
       UPDATE graphile_worker._private_job_queues q SET locked_at = NULL, locked_by = NULL
         FROM own WHERE q.id = own.job_queue_id AND q.locked_by = ANY($2)
     ), dead AS (
       DELETE FROM job_servers
        WHERE $5 AND id <> $1 AND beat_at < clock_timestamp() - make_interval(secs => $4::float8 / 1000)
       RETURNING id, pool_ids
     ), unlocked AS (
       SELECT id, graphile_worker.force_unlock_workers(pool_ids) FROM dead
     )
     SELECT id FROM unlocked`,
    [beat.server, [...beat.poolIds], beat.slots, beat.staleMs, beat.judge, [...beat.activeJobIds], OWN_LEFTOVER_MS],
  );
  return rows.map((row) => row.id);
}

/** A server closing cleanly leaves the list (its jobs are done or unlocked by graphile-worker itself). */
export async function leaveJobServers(server: string, jobs: Queryable = getJobsPool()): Promise<void> {
  await jobs.query('DELETE FROM job_servers WHERE id = $1', [server]);
}
