import 'server-only';
import type { WorkerSettings } from '../lib/model/lab/lab-inputs';
import type { LabVisibility } from '../lib/model/lab/lab-instance';
import { getPool, type Queryable } from './pool';
import { REMOTE_HEARTBEAT_FRESH_MS } from './remote-workers';

/*
 * A shared lab's doors (0041): whether its trainer lets the room's remote workers in now, and
 * whether the idle watch stopped its workers because nobody watched or drove it (with what it
 * stopped, so that one click starts them again). Written by the app servers, read by the lab page.
 */

/** What the idle watch stopped, as the page needs it for its words and its Start again. */
export type IdleStop = { at: Date; idleMinutes: number; workers: Array<{ name: string; settings: WorkerSettings }> };

export type LabDoors = { remoteWorkersOpen: boolean; idleStop?: IdleStop };

type DoorsRow = {
  remote_workers_open: boolean;
  idle_stopped_at: Date | null;
  idle_stopped_workers: { idleMinutes: number; workers: IdleStop['workers'] } | null;
};

export async function readLabDoors(id: string, db: Queryable = getPool()): Promise<LabDoors> {
  const { rows } = await db.query<DoorsRow>(
    'SELECT remote_workers_open, idle_stopped_at, idle_stopped_workers FROM labs WHERE id = $1',
    [id],
  );
  const row = rows[0];
  if (!row) return { remoteWorkersOpen: false };
  const stopped = row.idle_stopped_at && row.idle_stopped_workers;
  return {
    remoteWorkersOpen: row.remote_workers_open,
    ...(stopped
      ? {
          idleStop: {
            at: row.idle_stopped_at as Date,
            ...(row.idle_stopped_workers as NonNullable<DoorsRow['idle_stopped_workers']>),
          },
        }
      : {}),
  };
}

/** Opens or closes an open shared lab to remote workers; returns whether the lab was one. */
export async function setRemoteWorkersOpen(id: string, open: boolean, db: Queryable = getPool()): Promise<boolean> {
  const { rowCount } = await db.query(
    "UPDATE labs SET remote_workers_open = $2 WHERE id = $1 AND visibility = 'shared' AND closed_at IS NULL",
    [id, open],
  );
  return (rowCount ?? 0) > 0;
}

type ClaimedRow = { id: string; kind: string; row_id: number; resource: string; visibility: LabVisibility };

/**
 * The idle watch's choice: the open shared labs with a live worker that nobody used (watched through
 * any app server, or drove: a worker started in it, from a page, a command line or a worker line) for
 * `idleMs` by the database's clock, except `keepOpen` (labs the caller
 * has live viewers on). Each is marked stopped and used in the one statement that picks it, rows
 * another server holds skipped, so two servers watching at once never both stop a lab.
 */
export async function claimUnwatchedSharedLabs(
  input: { idleMs: number; keepOpen: readonly string[] },
  db: Queryable = getPool(),
): Promise<ClaimedRow[]> {
  const { rows } = await db.query<ClaimedRow>(
    `UPDATE labs SET idle_stopped_at = clock_timestamp(), idle_stopped_workers = NULL, last_used_at = clock_timestamp()
      WHERE id IN (SELECT l.id FROM labs l
                    WHERE l.visibility = 'shared' AND l.closed_at IS NULL AND NOT (l.id = ANY($2))
                      AND greatest(coalesce(l.last_used_at, l.created_at),
                                   (SELECT max(s.started_at) FROM remote_workers s
                                     WHERE s.lab = l.id AND s.generation = l.generation))
                          < clock_timestamp() - make_interval(secs => $1::double precision / 1000)
                      AND EXISTS (SELECT 1 FROM remote_workers r
                                   WHERE r.lab = l.id AND r.generation = l.generation AND r.stopped_at IS NULL
                                     AND r.heartbeat_at > clock_timestamp() - make_interval(secs => $3::double precision / 1000))
                    FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, row_id, resource, visibility`,
    [input.idleMs, input.keepOpen, REMOTE_HEARTBEAT_FRESH_MS],
  );
  return rows;
}

/** What the idle watch stopped in the lab, for its page. */
export async function recordIdleStop(id: string, stop: Omit<IdleStop, 'at'>, db: Queryable = getPool()): Promise<void> {
  await db.query('UPDATE labs SET idle_stopped_workers = $2 WHERE id = $1', [id, JSON.stringify(stop)]);
}

/** The lab runs again (a start, a reset): its idle stop is over. */
export async function clearIdleStop(id: string, db: Queryable = getPool()): Promise<void> {
  await db.query(
    'UPDATE labs SET idle_stopped_at = NULL, idle_stopped_workers = NULL WHERE id = $1 AND idle_stopped_at IS NOT NULL',
    [id],
  );
}
