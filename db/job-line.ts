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
 */

/**
 * A LATERAL subquery giving `ahead` and `held` for the job whose columns are `${m}.priority`,
 * `${m}.run_at` and `${m}.job_id`, with `${slots}` the room's slots (an SQL expression).
 */
export function jobsAheadSql(m: string, slots: string): string {
  return `(
    SELECT coalesce(count(*) FILTER (WHERE b.job_queue_id IS NULL)
                    + count(DISTINCT b.job_queue_id) FILTER (WHERE b.job_queue_id IS NOT NULL AND NOT b.queue_busy)
                    + CASE WHEN count(DISTINCT b.job_queue_id) FILTER (WHERE b.queue_busy) >= ${slots}
                           THEN count(*) FILTER (WHERE b.queue_busy) ELSE 0 END, 0)::int AS ahead,
           coalesce(count(DISTINCT b.job_queue_id) FILTER (WHERE b.queue_busy), 0)::int AS held
      FROM (SELECT j.job_queue_id, coalesce(q.locked_at IS NOT NULL, false) AS queue_busy
              FROM graphile_worker._private_jobs j
              LEFT JOIN graphile_worker._private_job_queues q ON q.id = j.job_queue_id
             WHERE j.locked_at IS NULL AND j.attempts < j.max_attempts
               AND (j.priority, j.run_at, j.id) < (${m}.priority, ${m}.run_at, ${m}.job_id)) b
  )`;
}

/** The slots of the app servers that beat in the last `$n` milliseconds (an SQL expression). */
export const roomSlotsSql = (staleMsParam: string) =>
  `(SELECT coalesce(sum(slots), 0) FROM job_servers
     WHERE beat_at > clock_timestamp() - make_interval(secs => ${staleMsParam}::float8 / 1000))::int`;
