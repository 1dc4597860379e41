import 'server-only';
import { getPool, type Queryable } from './pool';

/** A worker a server started, whose last recorded word is that it runs (started or restarted). */
export type UnendedLocalWorker = {
  lab: string;
  actor: string;
  resource: string | null;
  detail: Record<string, unknown>;
};

/**
 * The workers that app servers started (not remote ones) whose history does not say they ended:
 * the last lifecycle event of each name in each lab is a start or a restart.
 */
export async function listUnendedLocalWorkers(db: Queryable = getPool()): Promise<UnendedLocalWorker[]> {
  const { rows } = await db.query<UnendedLocalWorker & { kind: string }>(
    `SELECT * FROM (
       SELECT DISTINCT ON (lab, actor) lab, actor, resource, detail, kind
         FROM events
        WHERE kind IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed')
          AND NOT (detail ? 'remote')
        ORDER BY lab, actor, id DESC) last
      WHERE kind IN ('worker_started', 'worker_restarted')`,
  );
  return rows.map(({ kind: _kind, ...worker }) => worker);
}
