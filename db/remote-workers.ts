import 'server-only';
import type { WorkerSettings } from '../lib/model/lab-inputs';
import type { WorkerCommand } from '../lib/model/worker-commands';
import { getPool, type Queryable } from './pool';

/*
 * Every worker's status row and its commands, in the database: the one place every app server and
 * every worker (started by a server or by hand, here or on another machine) reach. The table keeps
 * its first name, remote_workers. What the servers read of it: db/worker-status.ts. Every time here
 * is the database's clock.
 */

/** A remote worker is live while it beat within this long; after that it is gone, whatever its row says. */
export const REMOTE_HEARTBEAT_FRESH_MS = 5_000;

/** Why a remote worker from before its lab's last reset stops. */
export const RESET_WHILE_AWAY =
  'the lab was reset since this worker joined it: the database refuses its leases and writes (start it again to join the new run)';

export type RemoteCommand = WorkerCommand;

export type RemoteStatus = { phase: string; token?: number; believedUntil?: string; armed: boolean };

/**
 * A remote worker (row `alias`) is live: not stopped, beat recently, and in the lab's current run
 * (one from before a reset is gone for the lab, whatever its heartbeat said a moment before).
 */
const liveIn = (alias: string) => `(${alias}.stopped_at IS NULL
  AND ${alias}.heartbeat_at > clock_timestamp() - make_interval(secs => ${REMOTE_HEARTBEAT_FRESH_MS / 1000})
  AND ${alias}.generation = (SELECT l.generation FROM labs l WHERE l.id = ${alias}.lab))`;

/**
 * Claims the name in the lab for this run. Refused (undefined) while another run of that name is
 * live; a stopped or silent one, or one from before the lab's last reset, is taken over, and
 * commands it left untaken are dropped. Returns
 * the lab's generation the worker joins (db/lab-generation.ts): it carries it in all it sends.
 */
export async function registerRemoteWorker(
  input: { lab: string; name: string; instance: string; settings: WorkerSettings },
  db: Queryable,
): Promise<{ generation: number } | undefined> {
  // Names are told apart without case, as the supervisor does: "far" would hide "Far".
  const { rows: taken } = await db.query(
    `SELECT 1 FROM remote_workers r WHERE r.lab = $1 AND lower(r.name) = lower($2) AND r.name <> $2 AND ${liveIn('r')}`,
    [input.lab, input.name],
  );
  if (taken.length > 0) return undefined;
  // Nor the name of a worker the server runs in the lab: the server records its workers' lives in
  // the lab's history (a remote worker's carry detail.remote), and the last word on that name says
  // whether it still runs. Two holders of one name would share a lane and a lease holder's name.
  const { rows: local } = await db.query<{ kind: string }>(
    `SELECT kind FROM events
      WHERE lab = $1 AND lower(actor) = lower($2) AND NOT (detail ? 'remote')
        AND kind IN ('worker_started', 'worker_restarted', 'worker_stopped', 'worker_crashed')
      ORDER BY id DESC LIMIT 1`,
    [input.lab, input.name],
  );
  if (local[0]?.kind === 'worker_started' || local[0]?.kind === 'worker_restarted') return undefined;
  const { rows } = await db.query<{ generation: string }>(
    `INSERT INTO remote_workers AS r (lab, name, instance, settings, phase, generation)
     VALUES ($1, $2, $3, $4, 'starting', (SELECT generation FROM labs WHERE id = $1))
     ON CONFLICT (lab, name) DO UPDATE
        SET instance = EXCLUDED.instance, settings = EXCLUDED.settings, phase = 'starting', token = NULL,
            generation = EXCLUDED.generation,
            believed_until = NULL, armed = false, started_at = clock_timestamp(),
            heartbeat_at = clock_timestamp(), stopped_at = NULL
      WHERE NOT ${liveIn('r')}
     RETURNING generation`,
    [input.lab, input.name, input.instance, JSON.stringify(input.settings)],
  );
  const joined = rows[0];
  if (!joined) return undefined;
  await db.query(
    'UPDATE worker_commands SET taken_at = clock_timestamp() WHERE lab = $1 AND worker = $2 AND taken_at IS NULL',
    [input.lab, input.name],
  );
  return { generation: Number(joined.generation) };
}

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
  const { rows } = await db.query<{ instance: string; closed: boolean }>(
    `UPDATE remote_workers r
        SET heartbeat_at = clock_timestamp(), phase = $4, token = $5, believed_until = $6, armed = $7
       FROM labs l
      WHERE r.lab = $1 AND r.name = $2 AND l.id = r.lab AND r.instance = $3 AND r.stopped_at IS NULL
        AND r.generation = l.generation
      RETURNING r.instance, l.closed_at IS NOT NULL AS closed`,
    [
      input.lab,
      input.name,
      input.instance,
      status.phase,
      status.token ?? null,
      status.believedUntil ?? null,
      status.armed,
    ],
  );
  const row = rows[0];
  if (!row) {
    // Only to say why: the heartbeat itself was refused above, in one statement.
    const { rows: reset } = await db.query(
      `SELECT 1 FROM remote_workers r JOIN labs l ON l.id = r.lab
        WHERE r.lab = $1 AND r.name = $2 AND r.instance = $3 AND r.generation <> l.generation`,
      [input.lab, input.name, input.instance],
    );
    if (reset.length > 0) return { stop: RESET_WHILE_AWAY };
    return { stop: 'another worker took this name over (this one was silent too long)' };
  }
  if (row.closed) return { stop: 'the lab was closed' };
  return {};
}

export async function markRemoteWorkerStopped(
  input: { lab: string; name: string; instance: string },
  db: Queryable,
): Promise<void> {
  await db.query(
    `UPDATE remote_workers SET stopped_at = clock_timestamp(), phase = 'stopped'
      WHERE lab = $1 AND name = $2 AND instance = $3 AND stopped_at IS NULL`,
    [input.lab, input.name, input.instance],
  );
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
  input: { lab: string; worker: string },
  db: Queryable,
): Promise<Array<{ id: number; command: RemoteCommand; seconds?: number }>> {
  const { rows } = await db.query<{ id: string; command: RemoteCommand; seconds: number | null }>(
    `UPDATE worker_commands SET taken_at = clock_timestamp()
      WHERE id IN (SELECT id FROM worker_commands WHERE lab = $1 AND worker = $2 AND taken_at IS NULL
                    ORDER BY id FOR UPDATE SKIP LOCKED)
      RETURNING id, command, seconds`,
    [input.lab, input.worker],
  );
  return rows
    .map((row) => ({
      id: Number(row.id),
      command: row.command,
      ...(row.seconds === null ? {} : { seconds: row.seconds }),
    }))
    .sort((a, b) => a.id - b.id);
}
