import 'server-only';
import { getPool, type Queryable } from './pool';

/*
 * The walkthrough step the trainer is showing on a lab (0038_walkthrough_shown_step.sql), which every
 * watcher's page shows: recorded with the lab's run, so that a reset, which starts the next run,
 * clears it. Only the server's commands write it, for one who may drive the lab (lib/server/).
 */

/**
 * Records `step` (from 0) as the one shown on the lab's current run, and wakes the lab's live feed
 * (a note with no event id), whose next snapshot carries it to every page of the lab.
 */
export async function recordShownStep(lab: string, step: number, db: Queryable = getPool()): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH shown AS (
       UPDATE labs SET shown_step = $2, shown_step_generation = generation WHERE id = $1 RETURNING id
     )
     SELECT pg_notify('fencing_events', json_build_object('lab', id)::text) FROM shown`,
    [lab, step],
  );
  return rowCount === 1;
}

/** The step (from 0) shown on the lab's current run, if the trainer has shown one since its last reset. */
export async function readShownStep(lab: string, db: Queryable = getPool()): Promise<number | undefined> {
  const { rows } = await db.query<{ step: number | null }>(
    `SELECT CASE WHEN shown_step_generation = generation THEN shown_step END AS step FROM labs WHERE id = $1`,
    [lab],
  );
  return rows[0]?.step ?? undefined;
}

/**
 * Forgets the step shown on the lab (a lab whose run is not its `generation`: the failover lab, whose
 * new story clears its events), and wakes its live feed: its watchers follow the lab again until the
 * trainer shows a step of the new story.
 */
export async function forgetShownStep(lab: string, db: Queryable = getPool()): Promise<void> {
  await db.query(
    `WITH shown AS (UPDATE labs SET shown_step = NULL WHERE id = $1 RETURNING id)
     SELECT pg_notify('fencing_events', json_build_object('lab', id)::text) FROM shown`,
    [lab],
  );
}
