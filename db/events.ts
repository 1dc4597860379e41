import 'server-only';
import type { EventKind, LabEvent, NewEvent } from '../lib/model/core/events';
import { parseStoredToken, parseToken } from '../lib/model/core/token';
import { getPool, type Queryable, toFencingError, withTransaction } from './pool';
import { identityParams, type WorkerIdentity } from './worker-identity';

/**
 * Deletes a lab's history when the lab is reset, and tells live feeds so, with the boundary: every
 * event of the lab up to `upTo` is gone, every later one is news. Under the lab's events lock, so
 * that an event being appended to it right now lands either before the reset (id <= upTo, deleted)
 * or after it (0009_events_lock_per_lab.sql). Inside the caller's transaction when given one (the
 * reset's), else in one of its own; the note is delivered when that transaction commits.
 */
export async function clearEvents(lab: string, db?: Queryable): Promise<void> {
  const clear = async (client: Queryable) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('fencing_lab.events'), hashtext($1))", [lab]);
    await client.query(
      `WITH gone AS (DELETE FROM events WHERE lab = $1 RETURNING id)
       SELECT pg_notify('fencing_events',
                        json_build_object('lab', $1::text, 'reset', true,
                                          'upTo', (SELECT coalesce(max(id), 0) FROM gone))::text)`,
      [lab],
    );
  };
  if (db) await clear(db);
  else await withTransaction(clear);
}

/**
 * Appends one event. Call it as the last statement of a transaction: the insert takes its lab's
 * events lock (see 0009_events_lock_per_lab.sql) and holds it until commit, so taking it last keeps
 * lock order fixed. `generation`: the run of the lab the writing worker joined; the insert is
 * refused (`lab_reset`) if the lab was reset since. Without it, the event is the server's own.
 * `as`: a worker recording its own event (db/worker-identity.ts), through the worker's function,
 * which allows only the kinds a worker records, under its own name, in its own lab and run.
 */
export async function appendEvent(
  db: Queryable,
  event: NewEvent,
  options: { once?: boolean; generation?: number; as?: WorkerIdentity } = {},
): Promise<void> {
  const statement = options.as
    ? db.query('SELECT worker_record_event($1, $2, $3, $4, $5, $6)', [
        ...identityParams(options.as),
        event.kind,
        event.token ?? null,
        JSON.stringify(event.detail ?? {}),
      ])
    : // `once`: skip an event that is recorded only once per lease and already is (lease_expired).
      db.query(
        `INSERT INTO events (lab, actor, kind, resource, row_id, token, stored_token, outcome, detail, generation)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)${options.once ? ' ON CONFLICT DO NOTHING' : ''}`,
        [
          event.lab,
          event.actor,
          event.kind,
          event.resource ?? null,
          event.rowId ?? null,
          event.token ?? null,
          event.storedToken ?? null,
          event.outcome ?? null,
          JSON.stringify(event.detail ?? {}),
          options.generation ?? null,
        ],
      );
  await statement.catch((error: unknown) => {
    throw toFencingError(error);
  });
}

export type EventRow = {
  id: string;
  lab: string;
  at: Date;
  actor: string;
  kind: string;
  resource: string | null;
  row_id: number | null;
  token: string | null;
  stored_token: string | null;
  outcome: string | null;
  detail: Record<string, unknown>;
};

/**
 * A lab's events after `afterId`, in id order (commit order): all of them, or the first `limit`
 * (a live feed reads a long history a page at a time).
 */
export async function listEvents(
  { lab, afterId = 0, limit }: { lab: string; afterId?: number; limit?: number },
  db: Queryable = getPool(),
): Promise<LabEvent[]> {
  const { rows } = await db.query<EventRow>(
    `SELECT id, lab, at, actor, kind, resource, row_id, token, stored_token, outcome, detail
       FROM events WHERE lab = $1 AND id > $2 ORDER BY id${limit === undefined ? '' : ' LIMIT $3'}`,
    limit === undefined ? [lab, afterId] : [lab, afterId, limit],
  );
  return rows.map(reshapeEvent);
}

/**
 * A lab's events up to a moment given as ms since its first event (in id order, as the replay's
 * `?at=` counts): every event whose time, in whole ms, is at most the first's plus `msFromFirst`, in
 * id order. Read by the events' (lab, at) index, so that a moment early in a long history reads only
 * its beginning (a what-if fork needs nothing after its moment).
 */
export async function listEventsUntilMoment(
  { lab, msFromFirst }: { lab: string; msFromFirst: number },
  db: Queryable = getPool(),
): Promise<LabEvent[]> {
  // Times compared in whole ms, floored as node-postgres reads a timestamptz into a Date.
  const { rows } = await db.query<EventRow>(
    `SELECT id, lab, at, actor, kind, resource, row_id, token, stored_token, outcome, detail
       FROM events
      WHERE lab = $1
        AND at < (SELECT date_trunc('milliseconds', at) FROM events WHERE lab = $1 ORDER BY id LIMIT 1)
                 + make_interval(secs => ($2::double precision + 1) / 1000)
      ORDER BY id`,
    [lab, msFromFirst],
  );
  return rows.map(reshapeEvent);
}

/**
 * A page of a lab's events after `afterId` (the first `limit`, in id order, as listEvents reads
 * them), already written as the live feed sends it: JSON text of a `WirePage`
 * (lib/model/core/wire-page.ts: the lab once, each event a row of its fields, id and time as steps from
 * the event before), which `fromWirePage` turns into exactly what `toWire` makes of the same events
 * (db/event-page-json.test.ts). PostgreSQL writes the text, so that a long history costs the app
 * server no row parsing, no reshaping and no JSON.stringify (for 200,000 events those took about
 * 1.5 s of its CPU). The text has no line break (to_json and jsonb escape them): it fits on one SSE
 * `data:` line. A worker's `detail.server` (the process run of the app server that started it) stays
 * on the server, as in toWire.
 */
export async function readWireEventPage(
  { lab, afterId, limit }: { lab: string; afterId: number; limit: number },
  db: Queryable = getPool(),
): Promise<{ json: string; count: number; lastId: number | null }> {
  // Times in whole milliseconds, floored as node-postgres reads a timestamptz into a Date.
  const { rows } = await db.query<{ rows: string | null; count: number; last_id: string | null }>(
    `SELECT string_agg(wire, ',' ORDER BY id) AS rows, count(*)::int AS count, max(id) AS last_id
       FROM (SELECT id,
                    concat('[', id - lag(id, 1, 0::bigint) OVER w, ',', ms - lag(ms, 1, 0::bigint) OVER w,
                           ',', to_json(actor), ',', to_json(kind), ',', coalesce(to_json(resource)::text, 'null'),
                           ',', coalesce(row_id::text, 'null'), ',', coalesce(token::text, 'null'),
                           ',', coalesce(stored_token::text, 'null'), ',', coalesce(to_json(outcome)::text, 'null'),
                           ',', CASE WHEN jsonb_typeof(detail -> 'server') = 'object' THEN detail - 'server'
                                     ELSE detail END, ']') AS wire
               FROM (SELECT *, floor(extract(epoch FROM at) * 1000)::bigint AS ms
                       FROM events WHERE lab = $1 AND id > $2 ORDER BY id LIMIT $3) AS page_events
             WINDOW w AS (ORDER BY id)) AS page`,
    [lab, afterId, limit],
  );
  const row = rows[0];
  return {
    json: `{"lab":${JSON.stringify(lab)},"rows":[${row?.rows ?? ''}]}`,
    count: row?.count ?? 0,
    lastId: row?.last_id == null ? null : Number(row.last_id),
  };
}

/** The ids of a lab's oldest and newest events (null when it has none). */
export async function eventIdRange(
  lab: string,
  db: Queryable = getPool(),
): Promise<{ first: number | null; last: number | null }> {
  const { rows } = await db.query<{ first: string | null; last: string | null }>(
    'SELECT min(id) AS first, max(id) AS last FROM events WHERE lab = $1',
    [lab],
  );
  const row = rows[0];
  return { first: row?.first == null ? null : Number(row.first), last: row?.last == null ? null : Number(row.last) };
}

export function reshapeEvent(row: EventRow): LabEvent {
  return {
    id: Number(row.id),
    lab: row.lab,
    at: row.at,
    actor: row.actor,
    kind: row.kind as EventKind,
    ...(row.resource === null ? {} : { resource: row.resource }),
    ...(row.row_id === null ? {} : { rowId: row.row_id }),
    ...(row.token === null ? {} : { token: parseToken(row.token) }),
    ...(row.stored_token === null ? {} : { storedToken: parseStoredToken(row.stored_token) }),
    ...(row.outcome === null ? {} : { outcome: row.outcome }),
    detail: row.detail,
  };
}
