import 'server-only';
import type { LabEvent } from '../lib/model/core/events';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { type EventRow, reshapeEvent } from './events';
import { getPool, type Queryable } from './pool';
import { REMOTE_HEARTBEAT_FRESH_MS } from './remote-workers';

/*
 * Every run of a person's own program as a lane (0052_client_runs.sql: written by a trigger on the
 * lab's events, never by a role), for the class wall and the history a wall link opens on /replay.
 */

export type ClientRun = {
  id: number;
  lab: string;
  kind: LabId;
  visibility: 'shared' | 'private';
  actor: string;
  program: string;
  /** The owner hash of the person who ran it; undefined: this server's own machine in a shared lab. */
  holder?: string;
  /** The name that person last gave the class wall (their newest guard attempt's), if any. */
  name?: string;
  startedAt: Date;
  /** Whether its runner still beats (within the heartbeat window), while it has not ended. */
  beating: boolean;
  ended?: { kind: 'worker_stopped' | 'worker_crashed' | 'replaced'; at: Date; reason: string };
  hasHistory: boolean;
};

type RunRow = {
  id: string;
  lab: string;
  kind: string;
  visibility: 'shared' | 'private' | null;
  actor: string;
  program: string;
  holder: string | null;
  name: string | null;
  started_at: Date;
  beating: boolean;
  end_kind: 'worker_stopped' | 'worker_crashed' | 'replaced' | null;
  ended_at: Date | null;
  reason: string | null;
  has_history: boolean;
};

const RUN_COLUMNS = `c.id, c.lab, c.kind, l.visibility, c.actor, c.program, c.holder, c.started_at,
  c.end_kind, c.ended_at, c.reason, c.history IS NOT NULL AS has_history,
  (SELECT g.name FROM guard_attempts g WHERE g.owner_hash = c.holder ORDER BY g.id DESC LIMIT 1) AS name,
  EXISTS (SELECT FROM remote_workers r
           WHERE r.lab = c.lab AND r.name = c.actor AND r.stopped_at IS NULL
             AND r.heartbeat_at > clock_timestamp() - make_interval(secs => $1 / 1000.0)) AS beating`;

function runOf(row: RunRow): ClientRun {
  return {
    id: Number(row.id),
    lab: row.lab,
    kind: row.kind as LabId,
    visibility: row.visibility ?? 'private',
    actor: row.actor,
    program: row.program,
    ...(row.holder === null ? {} : { holder: row.holder }),
    ...(row.name === null ? {} : { name: row.name }),
    startedAt: row.started_at,
    beating: row.beating,
    ...(row.end_kind && row.ended_at
      ? { ended: { kind: row.end_kind, at: row.ended_at, reason: row.reason ?? '' } }
      : {}),
    hasHistory: row.has_history,
  };
}

/** The newest runs, every person's (no `holder`) or one person's, newest first. */
export async function listClientRuns(
  { holder, limit }: { holder?: string; limit: number },
  db: Queryable = getPool(),
): Promise<ClientRun[]> {
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM client_runs c LEFT JOIN labs l ON l.id = c.lab
      WHERE $2::text IS NULL OR c.holder = $2 ORDER BY c.id DESC LIMIT $3`,
    [REMOTE_HEARTBEAT_FRESH_MS, holder ?? null, limit],
  );
  return rows.map(runOf);
}

export async function findClientRun(id: number, db: Queryable = getPool()): Promise<ClientRun | undefined> {
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM client_runs c LEFT JOIN labs l ON l.id = c.lab WHERE c.id = $2`,
    [REMOTE_HEARTBEAT_FRESH_MS, id],
  );
  return rows[0] && runOf(rows[0]);
}

/** A kept event, as to_jsonb wrote its row (numbers for ids and tokens, ISO text for the time). */
type KeptRow = Omit<EventRow, 'id' | 'at' | 'token' | 'stored_token' | 'lab'> & {
  id: number;
  at: string;
  token: number | null;
  stored_token: number | null;
};

/** The events a run kept at its end (its lab's from its start to its end, the newest 2,000), oldest first. */
export async function readClientRunHistory(id: number, db: Queryable = getPool()): Promise<LabEvent[] | undefined> {
  const { rows } = await db.query<{ lab: string; history: KeptRow[] | null }>(
    'SELECT lab, history FROM client_runs WHERE id = $1',
    [id],
  );
  const row = rows[0];
  if (!row?.history) return undefined;
  return row.history.map((kept) =>
    reshapeEvent({
      ...kept,
      lab: row.lab,
      id: String(kept.id),
      at: new Date(kept.at),
      token: kept.token === null ? null : String(kept.token),
      stored_token: kept.stored_token === null ? null : String(kept.stored_token),
    }),
  );
}
