import 'server-only';
import { parseToken } from '../lib/model/core/token';
import type { WorkerSettings } from '../lib/model/lab/lab-inputs';
import { getPool, type Queryable } from './pool';
import { REMOTE_HEARTBEAT_FRESH_MS } from './remote-workers';

/*
 * Every worker's status row (table remote_workers, kept by its name for now: every worker has one,
 * not only remote ones; db/migrations/0017_worker_status.sql). The worker's listener beats its state
 * there (db/remote-workers.ts); this file holds what the app servers read of it, and the few
 * statements a server-started worker adds at its join and a crash adds at its end. Any server reads
 * the same rows: that is how every server shows and drives every worker.
 */

/** The app server process that started a worker, and the worker's own process id. Never sent to a browser. */
export type WorkerOrigin = { pid: number; startTicks: string; bootId: string; workerPid: number };

/** A worker as its status row says, in its lab's current run. */
export type WorkerStatusRecord = {
  lab: string;
  /** The lab's id for it: "w1" for a worker a server started, its name for one started by hand. */
  id: string;
  name: string;
  settings: WorkerSettings;
  phase: string;
  token?: number;
  believedUntil?: string;
  armed: boolean;
  /** Not stopped, beat within the last REMOTE_HEARTBEAT_FRESH_MS, in the lab's current run. */
  live: boolean;
  /** Set for a worker an app server started; absent for one started by hand (`npm run worker`). */
  origin?: WorkerOrigin;
  /** The run of the lab it joined. */
  generation: number;
  /**
   * Joined from a person's worker line (the database sets it from the session's role, not from what
   * the worker says): a process nobody here runs, which may never answer a command.
   */
  fromLine: boolean;
};

type Row = {
  lab: string;
  worker_id: string | null;
  name: string;
  settings: WorkerSettings;
  phase: string;
  token: string | null;
  believed_until: Date | null;
  armed: boolean;
  live: boolean;
  server: WorkerOrigin | null;
  generation: string;
  remote: boolean;
};

const LIVE = `(r.stopped_at IS NULL
  AND r.heartbeat_at > clock_timestamp() - make_interval(secs => ${REMOTE_HEARTBEAT_FRESH_MS / 1000})
  AND r.generation = l.generation)`;

/*
 * The workers a lab shows: those of its current run that are live, and, while the lab is open, the
 * ones a server started that did not stop on request (crashed, or gone silent with their server):
 * those may be restarted. A worker told to stop (a reset, a close, the end of a chaos run) is gone.
 */
const SHOWN = `r.generation = l.generation
  AND (${LIVE} OR (r.server IS NOT NULL AND l.closed_at IS NULL AND r.phase <> 'stopped'))`;

const COLUMNS = `r.lab, r.worker_id, r.name, r.settings, r.phase, r.token, r.believed_until, r.armed, r.server,
  r.generation, r.remote, ${LIVE} AS live`;

function reshape(row: Row): WorkerStatusRecord {
  return {
    lab: row.lab,
    id: row.worker_id ?? row.name,
    name: row.name,
    settings: row.settings,
    phase: row.phase,
    armed: row.armed,
    live: row.live,
    generation: Number(row.generation),
    fromLine: row.remote,
    ...(row.token === null ? {} : { token: parseToken(row.token) }),
    ...(row.believed_until === null ? {} : { believedUntil: row.believed_until.toISOString() }),
    ...(row.server === null ? {} : { origin: row.server }),
  };
}

/** The workers the lab shows, in the order they joined. */
export async function listWorkerStatus(lab: string, db: Queryable = getPool()): Promise<WorkerStatusRecord[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM remote_workers r JOIN labs l ON l.id = r.lab
      WHERE r.lab = $1 AND ${SHOWN}
      ORDER BY substring(r.worker_id FROM 2)::int NULLS LAST, r.started_at, r.name`,
    [lab],
  );
  return rows.map(reshape);
}

/** The worker `ref` names in the lab, by its id ("w1") or its name, case aside; a live one first. */
export async function findWorkerStatus(
  input: { lab: string; ref: string },
  db: Queryable = getPool(),
): Promise<WorkerStatusRecord | undefined> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM remote_workers r JOIN labs l ON l.id = r.lab
      WHERE r.lab = $1 AND (r.worker_id = lower($2) OR lower(r.name) = lower($2)) AND ${SHOWN}
      ORDER BY ${LIVE} DESC, r.heartbeat_at DESC LIMIT 1`,
    [input.lab, input.ref.trim()],
  );
  return rows[0] ? reshape(rows[0]) : undefined;
}

/**
 * Run once by every worker right after it joined (worker_record_origin, 0018): records which server
 * started it (null: started by hand) and, for a server's worker, gives it the lab's short id. A
 * restart in the same run of the lab keeps its id; the first join in a new run takes the next free
 * number, one at a time per lab, so two servers starting workers at once never share one. Returns
 * the id, null for a worker started by hand.
 */
export async function recordWorkerOrigin(
  input: { lab: string; name: string; instance: string; origin: WorkerOrigin | null },
  db: Queryable,
): Promise<string | null> {
  const { rows } = await db.query<{ id: string | null }>('SELECT worker_record_origin($1, $2, $3, $4) AS id', [
    input.lab,
    input.name,
    input.instance,
    input.origin === null ? null : JSON.stringify(input.origin),
  ]);
  return rows[0]?.id ?? null;
}

/** The worker's listener marks it crashed, just before it SIGKILLs its own process (worker_mark_crashed). */
export async function markWorkerCrashed(
  input: { lab: string; name: string; instance: string },
  db: Queryable,
): Promise<void> {
  await db.query('SELECT worker_mark_crashed($1, $2, $3)', [input.lab, input.name, input.instance]);
}

/** The server that SIGKILLed a worker's process says so in its row (the process cannot any more). */
export async function markWorkerKilled(
  input: { lab: string; name: string; workerPid: number },
  db: Queryable = getPool(),
): Promise<void> {
  await db.query('SELECT fl_mark_worker_killed($1, $2, $3)', [input.lab, input.name, input.workerPid]);
}

/**
 * Whether the lab's history says the worker still runs: its last start or restart has no stop or
 * crash after it. A server-started worker whose server died without a word is such a one; its
 * restart first ends the old lane.
 */
export async function historySaysRunning(input: { lab: string; name: string }, db: Queryable = getPool()) {
  const { rows } = await db.query<{ kind: string }>(
    `SELECT kind FROM events
      WHERE lab = $1 AND actor = $2
        AND kind IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed')
      ORDER BY id DESC LIMIT 1`,
    [input.lab, input.name],
  );
  return rows[0]?.kind === 'worker_started' || rows[0]?.kind === 'worker_restarted';
}
