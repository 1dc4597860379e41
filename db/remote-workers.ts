import 'server-only';
import { WORKER_PROTOCOL_VERSION } from '../lib/model/core/input-bounds';
import { parseToken, type Token } from '../lib/model/core/token';
import type { WorkerCommand } from '../lib/model/core/worker-commands';
import type { WorkerSettings } from '../lib/model/lab/lab-inputs';
import type { LabInstance, LabVisibility } from '../lib/model/lab/lab-instance';
import { isLabId } from '../lib/model/lab/lab-kinds';
import { getPool, type Queryable, toFencingError } from './pool';

/*
 * Every worker's status row and its commands, in the database: the one place every app server and
 * every worker (started by a server or by hand, here or on another machine) reach. The table keeps
 * its first name, remote_workers. What the servers read of it: db/worker-status.ts. A worker reaches
 * it only through its functions (0016_worker_functions.sql). Every time here is the database's clock.
 */

/** A remote worker is live while it beat within this long; after that it is gone, whatever its row says. */
export const REMOTE_HEARTBEAT_FRESH_MS = 5_000;

/** Why a remote worker from before its lab's last reset stops. */
export const RESET_WHILE_AWAY =
  'the lab was reset since this worker joined it: the database refuses its leases and writes (start it again to join the new run)';

export type RemoteCommand = WorkerCommand;

export type RemoteStatus = { phase: string; token?: number; believedUntil?: string; armed: boolean };

/**
 * Why a join is refused: besides no lab, a closed one, a name in use and a full lab, a remote worker
 * (the room's worker line) is refused a shared lab its trainer has not opened to remote workers
 * (not_open), the walkthrough's names A and B there (reserved_name), and more than its client
 * address's share of live remote workers (address_full; worker_join), and a new name past the
 * names a person's line may use in one lab (line_names).
 */
export type JoinRefusal =
  | 'no_lab'
  | 'closed'
  | 'name_taken'
  | 'full'
  | 'not_open'
  | 'reserved_name'
  | 'address_full'
  | 'line_names';

export type JoinResult =
  | { joined: true; generation: number; lab: LabInstance }
  | { joined: false; refusal: JoinRefusal }
  /** A clock drift setting in a lab of this kind: only the drifting-clock labs' workers have one. */
  | { joined: false; refusal: 'no_clock_drift'; kind: string }
  /** Another protocol version: `speaks` is the version this database speaks. */
  | { joined: false; refusal: 'protocol'; speaks: number };

/**
 * Joins the lab's current run under `name` with a fresh `instance`, the worker's per-run secret, which
 * it presents to every worker function afterwards (worker_join, 0016_worker_functions.sql). Refused
 * when the lab does not exist or is closed, or another run of that name is live (or the server runs a
 * worker of that name there); a stopped or silent one, or one from before the lab's last reset, is
 * taken over, and commands it left untaken are dropped. A clock drift setting is refused in any lab
 * but a drifting-clock one (0022_new_labs_hardening.sql, 0031), and nothing of the worker stored. Returns what the worker needs of the lab and
 * the run (generation) it joined.
 */
export async function registerRemoteWorker(
  input: { lab: string; name: string; instance: string; settings: WorkerSettings; joinKey?: string },
  db: Queryable,
): Promise<JoinResult> {
  const { rows } = await db
    .query<{
      refusal: JoinRefusal | 'no_clock_drift' | 'protocol' | null;
      generation: string | null;
      kind: string | null;
      row_id: number | null;
      resource: string | null;
      visibility: LabVisibility | null;
    }>('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
      input.lab,
      input.name,
      input.instance,
      // The protocol this client speaks (docs/protocol.md): worker_join refuses another, and keeps the settings without it.
      JSON.stringify({ ...input.settings, protocol: WORKER_PROTOCOL_VERSION }),
      input.joinKey ?? null,
    ])
    .catch((error: unknown) => {
      throw toFencingError(error);
    });
  const row = rows[0];
  if (row?.refusal === 'no_clock_drift') return { joined: false, refusal: row.refusal, kind: String(row.kind) };
  if (row?.refusal === 'protocol') return { joined: false, refusal: row.refusal, speaks: Number(row.kind) };
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

/** The channel a worker's listener LISTENs on: a notification names the lab and worker it is for. */
export const COMMANDS_CHANNEL = 'fencing_worker_commands';

/** A worker's listener connection starts listening for its commands (LISTEN needs no privilege). */
export async function listenForCommands(db: Queryable): Promise<void> {
  await db.query(`LISTEN ${COMMANDS_CHANNEL}`);
}

type LaneIdentity = { lab: string; name: string; instance: string };
const laneArgs = (lane: LaneIdentity) => [lane.lab, lane.name, lane.instance];

/**
 * An --exec lane's critical window (issue 36, lib/worker/exec-lane.ts): the runner holds it on its
 * session while a critical pause is armed; the program's next write_sent then waits in the database
 * until the runner has frozen the program (worker_record_event).
 */
export async function holdCriticalWindow(lane: LaneIdentity, db: Queryable): Promise<void> {
  await db.query('SELECT worker_hold_critical_window($1, $2, $3)', laneArgs(lane));
}

/** Whether the program's write_sent waits at the window the runner holds. */
export async function criticalWindowReached(lane: LaneIdentity, db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ reached: boolean }>(
    'SELECT worker_critical_window_reached($1, $2, $3) AS reached',
    laneArgs(lane),
  );
  return rows[0]?.reached === true;
}

/**
 * Lets the program's write_sent in (once it is frozen, or when the pause is cancelled); when one was
 * waiting, the token it carries, once it is in.
 */
export async function releaseCriticalWindow(lane: LaneIdentity, db: Queryable): Promise<Token | undefined> {
  const { rows } = await db.query<{ token: string | null }>(
    'SELECT worker_release_critical_window($1, $2, $3) AS token',
    laneArgs(lane),
  );
  // The program's own token: whatever it sent, a token only if it is one (a person's client may send 0).
  const value = Number(rows[0]?.token ?? Number.NaN);
  return Number.isSafeInteger(value) && value >= 1 ? parseToken(value) : undefined;
}
