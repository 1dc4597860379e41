import 'server-only';
import { FencingError, isFencingError } from '../lib/model/errors';
import type { WorkerSettings } from '../lib/model/lab-inputs';
import type { LabInstance, LabVisibility } from '../lib/model/lab-instance';
import { isLabId } from '../lib/model/labs';
import { parseToken } from '../lib/model/token';
import { getPool, type Queryable, toFencingError } from './pool';

/*
 * Remote workers (lib/worker/remote-main.ts) and their commands, in the database: the one place the
 * server and a worker on another machine both reach. Every time here is the database's clock.
 */

/** A remote worker is live while it beat within this long; after that it is gone, whatever its row says. */
export const REMOTE_HEARTBEAT_FRESH_MS = 5_000;

/** Why a remote worker from before its lab's last reset stops. */
export const RESET_WHILE_AWAY =
  'the lab was reset since this worker joined it: the database refuses its leases and writes (start it again to join the new run)';

export type RemoteCommand = 'pause-now' | 'arm-critical-pause' | 'cancel-pauses' | 'resume' | 'crash' | 'stop';

export type RemoteWorkerRecord = {
  lab: string;
  name: string;
  settings: WorkerSettings;
  phase: string;
  token?: number;
  believedUntil?: string;
  armed: boolean;
  live: boolean;
};

export type RemoteStatus = { phase: string; token?: number; believedUntil?: string; armed: boolean };

type RemoteWorkerRow = {
  lab: string;
  name: string;
  settings: WorkerSettings;
  phase: string;
  token: string | null;
  believed_until: Date | null;
  armed: boolean;
  live: boolean;
};

/**
 * A remote worker (row `alias`) is live: not stopped, beat recently, and in the lab's current run
 * (one from before a reset is gone for the lab, whatever its heartbeat said a moment before).
 */
const liveIn = (alias: string) => `(${alias}.stopped_at IS NULL AND NOT ${alias}.local
  AND ${alias}.heartbeat_at > clock_timestamp() - make_interval(secs => ${REMOTE_HEARTBEAT_FRESH_MS / 1000})
  AND ${alias}.generation = (SELECT l.generation FROM labs l WHERE l.id = ${alias}.lab))`;

const COLUMNS = `lab, name, settings, phase, token, believed_until, armed, ${liveIn('remote_workers')} AS live`;

function reshapeRemoteWorker(row: RemoteWorkerRow): RemoteWorkerRecord {
  return {
    lab: row.lab,
    name: row.name,
    settings: row.settings,
    phase: row.phase,
    armed: row.armed,
    live: row.live,
    ...(row.token === null ? {} : { token: parseToken(row.token) }),
    ...(row.believed_until === null ? {} : { believedUntil: row.believed_until.toISOString() }),
  };
}

export type JoinResult =
  | { joined: true; generation: number; lab: LabInstance }
  | { joined: false; refusal: 'no_lab' | 'closed' | 'name_taken' };

/**
 * Joins the lab's current run under `name` with a fresh `instance`, the worker's per-run secret, which
 * it presents to every worker function afterwards (worker_join, 0016_worker_functions.sql). Refused
 * when the lab does not exist or is closed, or another run of that name is live (or the server runs a
 * worker of that name there); a stopped or silent one, or one from before the lab's last reset, is
 * taken over, and commands it left untaken are dropped. Returns what the worker needs of the lab and
 * the run (generation) it joined.
 */
export async function registerRemoteWorker(
  input: { lab: string; name: string; instance: string; settings: WorkerSettings },
  db: Queryable,
): Promise<JoinResult> {
  const { rows } = await db
    .query<{
      refusal: 'no_lab' | 'closed' | 'name_taken' | null;
      generation: string | null;
      kind: string | null;
      row_id: number | null;
      resource: string | null;
      visibility: LabVisibility | null;
    }>('SELECT * FROM worker_join($1, $2, $3, $4)', [
      input.lab,
      input.name,
      input.instance,
      JSON.stringify(input.settings),
    ])
    .catch((error: unknown) => {
      throw toFencingError(error);
    });
  const row = rows[0];
  if (!row || row.refusal !== null) return { joined: false, refusal: row?.refusal ?? 'no_lab' };
  if (!isLabId(row.kind)) throw new Error(`lab ${input.lab} has an unknown kind ${row.kind}`);
  return {
    joined: true,
    generation: Number(row.generation),
    lab: {
      id: input.lab,
      kind: row.kind,
      rowId: row.row_id as number,
      resource: row.resource as string,
      visibility: row.visibility as LabVisibility,
    },
  };
}

/**
 * A worker this server forks joins through the server, which hands it its instance: marked local,
 * it beats no heartbeat and is not listed among the remote workers. Returns the run it joined.
 */
export async function registerLocalWorker(
  input: { lab: string; name: string; instance: string; settings: WorkerSettings },
  db: Queryable = getPool(),
): Promise<number> {
  const { rows } = await db
    .query<{ generation: string }>('SELECT fl_join_local_worker($1, $2, $3, $4) AS generation', [
      input.lab,
      input.name,
      input.instance,
      JSON.stringify(input.settings),
    ])
    .catch((error: unknown) => {
      const known = toFencingError(error);
      if (isFencingError(known, 'worker_not_joined')) {
        throw new FencingError('invalid_input', `a remote worker named ${JSON.stringify(input.name)} runs in this lab`);
      }
      throw known;
    });
  return Number(rows[0]?.generation);
}

const STOP_REASONS: Record<string, string> = {
  reset: RESET_WHILE_AWAY,
  taken_over: 'another worker took this name over (this one was silent too long)',
  closed: 'the lab was closed',
};

/**
 * The worker's heartbeat with its state. Returns why it must stop, if it must: its lab was closed or
 * reset since it joined, or another run took its name over (this one fell silent for longer than the
 * heartbeat window). A worker from before a reset never beats again: it would look live in the new run.
 */
export async function beatRemoteWorker(
  input: { lab: string; name: string; instance: string; status: RemoteStatus },
  db: Queryable,
): Promise<{ stop?: string }> {
  const { status } = input;
  const { rows } = await db.query<{ stop: string | null }>('SELECT worker_beat($1, $2, $3, $4, $5, $6, $7) AS stop', [
    input.lab,
    input.name,
    input.instance,
    status.phase,
    status.token ?? null,
    status.believedUntil ?? null,
    status.armed,
  ]);
  const stop = rows[0]?.stop;
  return stop ? { stop: STOP_REASONS[stop] ?? stop } : {};
}

export async function markRemoteWorkerStopped(
  input: { lab: string; name: string; instance: string },
  db: Queryable,
): Promise<void> {
  await db.query('SELECT worker_mark_stopped($1, $2, $3)', [input.lab, input.name, input.instance]);
}

/** The lab's live remote workers, by name. */
export async function listLiveRemoteWorkers(lab: string, db: Queryable = getPool()): Promise<RemoteWorkerRecord[]> {
  const { rows } = await db.query<RemoteWorkerRow>(
    `SELECT ${COLUMNS} FROM remote_workers WHERE lab = $1 AND ${liveIn('remote_workers')} ORDER BY started_at, name`,
    [lab],
  );
  return rows.map(reshapeRemoteWorker);
}

export async function findRemoteWorker(
  input: { lab: string; name: string },
  db: Queryable = getPool(),
): Promise<RemoteWorkerRecord | undefined> {
  const { rows } = await db.query<RemoteWorkerRow>(
    `SELECT ${COLUMNS} FROM remote_workers WHERE lab = $1 AND lower(name) = lower($2) AND NOT local
      ORDER BY stopped_at IS NULL DESC, heartbeat_at DESC LIMIT 1`,
    [input.lab, input.name],
  );
  return rows[0] ? reshapeRemoteWorker(rows[0]) : undefined;
}

export async function enqueueWorkerCommand(
  input: { lab: string; worker: string; command: RemoteCommand; seconds?: number },
  db: Queryable = getPool(),
): Promise<void> {
  await db.query('INSERT INTO worker_commands (lab, worker, command, seconds) VALUES ($1, $2, $3, $4)', [
    input.lab,
    input.worker,
    input.command,
    input.seconds ?? null,
  ]);
  // Commands are done with once taken: a day later nobody needs them (the table stays small).
  await db.query("DELETE FROM worker_commands WHERE taken_at < clock_timestamp() - interval '1 day'");
}

/** Whether commands wait for the worker untaken (a pause it has not yet been told of). */
export async function hasPendingCommand(
  input: { lab: string; worker: string; commands: RemoteCommand[] },
  db: Queryable = getPool(),
): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM worker_commands WHERE lab = $1 AND worker = $2 AND taken_at IS NULL AND command = ANY($3) LIMIT 1',
    [input.lab, input.worker, input.commands],
  );
  return rows.length > 0;
}

/** Takes the worker's waiting commands, oldest first; each is taken once, even by racing takers. */
export async function takeWorkerCommands(
  input: { lab: string; worker: string; instance: string },
  db: Queryable,
): Promise<Array<{ id: number; command: RemoteCommand; seconds?: number }>> {
  const { rows } = await db.query<{ id: string; command: RemoteCommand; seconds: number | null }>(
    'SELECT * FROM worker_take_commands($1, $2, $3)',
    [input.lab, input.worker, input.instance],
  );
  return rows
    .map((row) => ({
      id: Number(row.id),
      command: row.command,
      ...(row.seconds === null ? {} : { seconds: row.seconds }),
    }))
    .sort((a, b) => a.id - b.id);
}
