import 'server-only';
import type { ForkWait } from '../lib/model/history/fork-wait';
import { SERVER_STALE_MS } from './guard-queue';
import { getPool, type Queryable } from './pool';

/*
 * What-if forks as jobs (issue 24): the fork's lab is opened by the server that took the request, and
 * its run (the pause story, with real workers) is a graphile-worker job any app server on the database
 * runs (lib/server/what-if-job.ts). One job per fork lab: its key is the lab's id, so a second add for
 * the same lab replaces the waiting one rather than running the story twice.
 */

export const WHAT_IF_TASK = 'what_if';
/** A fork whose servers died (or whose run failed) this many times is left as it is, said in the log. */
export const WHAT_IF_MAX_RUNS = 3;

/** Puts a fork's run in the room's queue. */
export async function enqueueWhatIf(lab: string, db: Queryable = getPool()): Promise<void> {
  await db.query(
    `SELECT graphile_worker.add_job($1, json_build_object('lab', $2::text), max_attempts => $3,
                                    job_key => 'what_if:' || $2::text)`,
    [WHAT_IF_TASK, lab, WHAT_IF_MAX_RUNS],
  );
}

/** Whether a fork's run is still waiting or running (its job exists and has tries left). */
export async function whatIfPending(lab: string, db: Queryable = getPool()): Promise<boolean> {
  const { rows } = await db.query<{ pending: boolean }>(
    `SELECT EXISTS (SELECT FROM graphile_worker._private_jobs
                     WHERE key = 'what_if:' || $1::text
                       AND (attempts < max_attempts OR locked_at IS NOT NULL)) AS pending`,
    [lab],
  );
  return rows[0]?.pending ?? false;
}

/**
 * A fork's run while it waits for a server (its job neither taken nor spent): how many waiting jobs a
 * server takes before it (graphile-worker's order: priority, then run_at) and whether any server beats.
 * Undefined once a server has taken it, or when it is done or spent: the page says nothing then.
 */
export async function whatIfWait(lab: string, db: Queryable = getPool()): Promise<ForkWait | undefined> {
  const { rows } = await db.query<{ ahead: number; slots: number }>(
    `SELECT (SELECT count(*) FROM graphile_worker._private_jobs j
              WHERE j.locked_at IS NULL AND j.attempts < j.max_attempts AND j.run_at <= clock_timestamp()
                AND (j.priority, j.run_at, j.id) < (mine.priority, mine.run_at, mine.id)
                -- A job whose named queue is busy (a sweep's next run behind its run under way) waits for
                -- that queue, not for a slot: a server takes the fork before it.
                AND NOT EXISTS (SELECT FROM graphile_worker._private_job_queues q
                                 WHERE q.id = j.job_queue_id AND q.locked_at IS NOT NULL))::int AS ahead,
            (SELECT coalesce(sum(slots), 0) FROM job_servers
              WHERE beat_at > clock_timestamp() - make_interval(secs => $2::float8 / 1000))::int AS slots
       FROM graphile_worker._private_jobs mine
      WHERE mine.key = 'what_if:' || $1::text AND mine.locked_at IS NULL AND mine.attempts < mine.max_attempts`,
    [lab, SERVER_STALE_MS],
  );
  const row = rows[0];
  return row ? { ahead: row.ahead, serversUp: row.slots > 0 } : undefined;
}
