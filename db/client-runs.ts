import 'server-only';
import type { ClientFaultKind } from '../lib/model/checker/client-faults';
import type { LabEvent } from '../lib/model/core/events';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { type EventRow, reshapeEvent } from './events';
import { getPool, type Queryable } from './pool';
import { REMOTE_HEARTBEAT_FRESH_MS } from './remote-workers';

/*
 * Every run of a person's own program as a lane (0052_client_runs.sql: written by a trigger on the
 * lab's events, never by a role), for the class wall and the history a wall link opens on /replay:
 * the lab's events between its start and its end, while the lab still has them.
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
  /** The private lab's owner hash (who may view the lab); undefined for a shared lab. */
  labOwner?: string;
  /** The name that person last gave the class wall (their newest guard attempt's), if any. */
  name?: string;
  startedAt: Date;
  /** Whether its runner still beats (within the heartbeat window), while it has not ended. */
  beating: boolean;
  ended?: { kind: EndKind; at: Date; reason: string; endId: number };
  startId: number;
  /** Whether the lab still holds the run's first event (a reset clears a lab's events). */
  kept: boolean;
  /** What it did wrong, once worked out after its end (setClientRunFaults). */
  faults?: KeptFault[];
};

export type EndKind = 'worker_stopped' | 'worker_crashed' | 'replaced' | 'restarted';
export type KeptFault = { kind: ClientFaultKind; words: string };

type RunRow = {
  id: string;
  lab: string;
  kind: string;
  visibility: 'shared' | 'private' | null;
  lab_owner: string | null;
  actor: string;
  program: string;
  holder: string | null;
  name: string | null;
  started_at: Date;
  beating: boolean;
  start_id: string;
  end_id: string | null;
  end_kind: EndKind | null;
  ended_at: Date | null;
  reason: string | null;
  faults: KeptFault[] | null;
  kept: boolean;
};

const RUN_COLUMNS = `c.id, c.lab, c.kind, l.visibility, l.owner_hash AS lab_owner, c.actor, c.program, c.holder,
  c.started_at, c.start_id, c.end_id, c.end_kind, c.ended_at, c.reason, c.faults,
  EXISTS (SELECT FROM events e WHERE e.id = c.start_id AND e.lab = c.lab) AS kept,
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
    ...(row.lab_owner === null ? {} : { labOwner: row.lab_owner }),
    ...(row.name === null ? {} : { name: row.name }),
    startedAt: row.started_at,
    beating: row.beating,
    startId: Number(row.start_id),
    ...(row.end_kind && row.ended_at && row.end_id !== null
      ? { ended: { kind: row.end_kind, at: row.ended_at, reason: row.reason ?? '', endId: Number(row.end_id) } }
      : {}),
    kept: row.kept,
    ...(row.faults === null ? {} : { faults: row.faults }),
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

/** The runs with these ids (those that exist), in one read: a wall's check of the runs it shows as not ended. */
export async function findClientRuns(ids: readonly number[], db: Queryable = getPool()): Promise<ClientRun[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM client_runs c LEFT JOIN labs l ON l.id = c.lab WHERE c.id = ANY($2::bigint[]) ORDER BY c.id`,
    [REMOTE_HEARTBEAT_FRESH_MS, ids],
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

/** Far more than a story's run records, few enough to replay in a browser tab. */
export const MAX_RUN_EVENTS = 20_000;

/**
 * A run's events, from the lab (its start to its end, both kept): every lane's, or `actor`'s only,
 * in id order, at most MAX_RUN_EVENTS. Empty once a reset cleared them.
 */
export async function readClientRunEvents(
  run: Pick<ClientRun, 'lab' | 'startId' | 'ended'>,
  { actor }: { actor?: string } = {},
  db: Queryable = getPool(),
): Promise<LabEvent[]> {
  const { rows } = await db.query<EventRow>(
    `SELECT id, lab, at, actor, kind, resource, row_id, token, stored_token, outcome, detail
       FROM events WHERE lab = $1 AND id BETWEEN $2 AND $3 AND ($4::text IS NULL OR actor = $4)
      ORDER BY id LIMIT $5`,
    [run.lab, run.startId, run.ended?.endId ?? Number.MAX_SAFE_INTEGER, actor ?? null, MAX_RUN_EVENTS],
  );
  return rows.map(reshapeEvent);
}

/** Keeps what an ended run did wrong, worked out once (the app's only write of a run). */
export async function setClientRunFaults(id: number, faults: KeptFault[], db: Queryable = getPool()): Promise<void> {
  await db.query('UPDATE client_runs SET faults = $2 WHERE id = $1 AND end_id IS NOT NULL', [
    id,
    JSON.stringify(faults),
  ]);
}
