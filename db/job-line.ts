/*
 * Where a waiting job stands in the room's queue, as graphile-worker 0.17 takes jobs: the oldest
 * available first (priority, run_at), skipping a job whose named queue is busy. A sweep's runs share
 * its named queues (db/sweeps.ts): while a queue's run is under way its next run waits; when that run
 * ends, the library frees the queue in the same transaction and the same slot asks again, so the
 * next run, older than anything added since, takes it. So each busy queue holds a slot until its runs
 * are spent, and a queue not yet running puts only its first run ahead of a later job. Hence, for a
 * job `m`, of the available jobs ordered before it:
 *   - every job in no named queue is ahead of it;
 *   - a named queue not busy puts one job ahead (its first);
 *   - a busy queue holds a slot (`held`); when the held slots are all the room's slots, every waiting
 *     run of those queues goes first too.
 * The estimate then shares the slots not held.
 *
 * Read from graphile-worker's public surface only: the `graphile_worker.jobs` view, which its docs
 * call the stable interface (columns may be added; one removed or retyped only in a major release,
 * https://worker.graphile.org/docs/jobs-view), never its `_private_` tables, which "may change in a
 * patch release". The view does not say whether a named queue is locked: a queue is busy while one of
 * its jobs is locked, since the library locks and frees a queue with the job it runs (getJobs,
 * completeJobs, failJobs, force_unlock_workers; and the beat's own release, db/job-servers.ts, frees
 * them together too). db/job-queue-surface.test.ts pins the columns read
 * here and the functions the product calls, so an upgrade that changes them fails there first.
 */

/**
 * A LATERAL subquery giving `ahead` and `held` for the job whose columns are `${m}.priority`,
 * `${m}.run_at` and `${m}.job_id`, with `${slots}` the room's slots (an SQL expression).
 */
export function jobsAheadSql(m: string, slots: string): string {
  return `(
    SELECT coalesce(count(*) FILTER (WHERE b.queue_name IS NULL)
                    + count(DISTINCT b.queue_name) FILTER (WHERE b.queue_name IS NOT NULL AND NOT b.queue_busy)
                    + CASE WHEN count(DISTINCT b.queue_name) FILTER (WHERE b.queue_busy) >= ${slots}
                           THEN count(*) FILTER (WHERE b.queue_busy) ELSE 0 END, 0)::int AS ahead,
           coalesce(count(DISTINCT b.queue_name) FILTER (WHERE b.queue_busy), 0)::int AS held
      FROM (SELECT j.queue_name,
                   j.queue_name IS NOT NULL
                   AND EXISTS (SELECT FROM graphile_worker.jobs r
                                WHERE r.queue_name = j.queue_name AND r.locked_at IS NOT NULL) AS queue_busy
              FROM graphile_worker.jobs j
             WHERE j.locked_at IS NULL AND j.attempts < j.max_attempts
               AND (j.priority, j.run_at, j.id) < (${m}.priority, ${m}.run_at, ${m}.job_id)) b
  )`;
}

/** The slots of the app servers that beat in the last `$n` milliseconds (an SQL expression). */
export const roomSlotsSql = (staleMsParam: string) =>
  `(SELECT coalesce(sum(slots), 0) FROM job_servers
     WHERE beat_at > clock_timestamp() - make_interval(secs => ${staleMsParam}::float8 / 1000))::int`;
