import 'server-only';
import type { ForkWait } from '../lib/model/history/fork-wait';
import { SERVER_STALE_MS } from './guard-queue';
import { jobsAheadSql, roomSlotsSql } from './job-line';
import { getJobsPool, type Queryable } from './pool';

/*
 * What-if forks as jobs (issue 24): the fork's lab is opened by the server that took the request, and
 * its run (the pause story, with real workers) is a graphile-worker job any app server on the database
 * runs (lib/server/what-if-job.ts). One job per fork lab: its key is the lab's id, so a second add for
 * the same lab replaces the waiting one rather than running the story twice. Every query here runs on
 * the job queue's database (db/jobs-database.ts): none touches a lab's tables.
 */

export const WHAT_IF_TASK = 'what_if';
/** A fork whose servers died (or whose run failed) this many times is left as it is, said in the log. */
export const WHAT_IF_MAX_RUNS = 3;

/** Puts a fork's run in the room's queue. */
export async function enqueueWhatIf(lab: string, jobs: Queryable = getJobsPool()): Promise<void> {
  await jobs.query(
    `SELECT graphile_worker.add_job($1, json_build_object('lab', $2::text), max_attempts => $3,
                                    job_key => 'what_if:' || $2::text)`,
    [WHAT_IF_TASK, lab, WHAT_IF_MAX_RUNS],
  );
}

/** Whether a fork's run is still waiting or running (its job exists and has tries left). */
export async function whatIfPending(lab: string, jobs: Queryable = getJobsPool()): Promise<boolean> {
  const { rows } = await jobs.query<{ pending: boolean }>(
    `SELECT EXISTS (SELECT FROM graphile_worker.jobs
                     WHERE key = 'what_if:' || $1::text
                       AND (attempts < max_attempts OR locked_at IS NOT NULL)) AS pending`,
    [lab],
  );
  return rows[0]?.pending ?? false;
}

/**
 * A fork's run while it waits for a server (its job neither taken nor spent): how many waiting jobs a
 * server takes before it (db/job-line.ts: graphile-worker's order, a sweep's busy queues counted as the
 * slots they hold) and whether any server beats. Undefined once a server has taken it, or when it is
 * done or spent: the page says nothing then.
 */
export async function whatIfWait(lab: string, jobs: Queryable = getJobsPool()): Promise<ForkWait | undefined> {
  const { rows } = await jobs.query<{ ahead: number; slots: number }>(
    `WITH room AS (SELECT ${roomSlotsSql('$2')} AS slots),
          mine AS (SELECT id AS job_id, priority, run_at FROM graphile_worker.jobs
                    WHERE key = 'what_if:' || $1::text AND locked_at IS NULL AND attempts < max_attempts)
     SELECT line.ahead, room.slots FROM mine CROSS JOIN room CROSS JOIN LATERAL ${jobsAheadSql('mine', 'room.slots')} line`,
    [lab, SERVER_STALE_MS],
  );
  const row = rows[0];
  return row ? { ahead: row.ahead, serversUp: row.slots > 0 } : undefined;
}
