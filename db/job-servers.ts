import 'server-only';
import { getPool, type Queryable } from './pool';

/*
 * Liveness for the job queue (issue 24; 0043_guard_attack_jobs.sql): graphile-worker records which
 * pool locked a job but not whether that pool still lives (a dead one's jobs stay locked for 4 hours).
 * Every app server beats every 500 ms with its pools' ids and its slots; a beat also forgets each peer
 * whose beat is older than `staleMs` and unlocks its pools' jobs in the same statement, so a survivor
 * dying halfway cannot leave them locked. Returns the peers forgotten.
 */
export async function beatJobServer(
  input: { server: string; poolIds: readonly string[]; slots: number; staleMs: number },
  db: Queryable = getPool(),
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `WITH beat AS (
       INSERT INTO job_servers (id, pool_ids, slots) VALUES ($1, $2, $3)
       ON CONFLICT (id) DO UPDATE SET beat_at = clock_timestamp(), pool_ids = EXCLUDED.pool_ids, slots = EXCLUDED.slots
     ), dead AS (
       DELETE FROM job_servers
        WHERE id <> $1 AND beat_at < clock_timestamp() - make_interval(secs => $4::float8 / 1000)
       RETURNING id, pool_ids
     ), unlocked AS (
       SELECT id, graphile_worker.force_unlock_workers(pool_ids) FROM dead
     )
     SELECT id FROM unlocked`,
    [input.server, [...input.poolIds], input.slots, input.staleMs],
  );
  return rows.map((row) => row.id);
}

/** A server closing cleanly: its jobs are done or unlocked by graphile-worker itself; it leaves the list. */
export async function leaveJobServers(server: string, db: Queryable = getPool()): Promise<void> {
  await db.query('DELETE FROM job_servers WHERE id = $1', [server]);
}
