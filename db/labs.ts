import 'server-only';
import { randomBytes } from 'node:crypto';
import { roomSettings } from '../lib/config/room-settings';
import { takesTraineeGuard, writesProtectedRows } from '../lib/labs/traits';
import { FencingError } from '../lib/model/core/errors';
import type { ForkRecord } from '../lib/model/history/what-if';
import {
  isLabInstanceId,
  type LabInstance,
  type LabVisibility,
  privateLabIdFrom,
  privateResourceOf,
} from '../lib/model/lab/lab-instance';
import { isLabId, type LabId } from '../lib/model/lab/lab-kinds';
import { forkRefusal, type PrivateLabCounts, privateLabRefusal } from '../lib/model/lab/lab-limits';
import { createProtectedRow } from './fenced-write';
import { bumpLabGeneration } from './lab-generation';
import { getPool, type Queryable, withTransaction } from './pool';

/*
 * The lab registry: which labs exist, of which kind, on which row and lease, and who owns the
 * private ones (by a hash of the owner's secret, never the secret). A closed lab holds no lease and
 * keeps its history for replay until the history pruner deletes that history
 * (deleteExpiredLabHistories). Lab records are never deleted, and a fenced lab's protected row
 * stays for good (protected rows are never deleted).
 */

export type LabRecord = LabInstance & { ownerHash?: string; createdAt: Date; closedAt?: Date };

type LabRow = {
  id: string;
  kind: string;
  row_id: number;
  resource: string;
  visibility: LabVisibility;
  owner_hash: string | null;
  created_at: Date;
  closed_at: Date | null;
};

const LAB_COLUMNS = 'id, kind, row_id, resource, visibility, owner_hash, created_at, closed_at';

function reshapeLab(row: LabRow): LabRecord {
  if (!isLabId(row.kind)) throw new Error(`lab ${row.id} has an unknown kind ${row.kind}`);
  return {
    id: row.id,
    kind: row.kind,
    rowId: row.row_id,
    resource: row.resource,
    visibility: row.visibility,
    createdAt: row.created_at,
    ...(row.owner_hash ? { ownerHash: row.owner_hash } : {}),
    ...(row.closed_at ? { closedAt: row.closed_at } : {}),
  };
}

/** The lab, unless it does not exist or is a closed private lab whose history was deleted. */
export async function findLab(id: string, db: Queryable = getPool()): Promise<LabRecord | undefined> {
  if (!isLabInstanceId(id)) return undefined;
  const { rows } = await db.query<LabRow>(
    `SELECT ${LAB_COLUMNS} FROM labs WHERE id = $1 AND history_deleted_at IS NULL`,
    [id],
  );
  return rows[0] ? reshapeLab(rows[0]) : undefined;
}

/** One lock for every private-lab opening: counting and inserting happen as one step. */
const PRIVATE_LABS_LOCK = "pg_advisory_xact_lock(hashtext('fencing_lab.private_labs'))";

/**
 * Throws the refusal (FencingError 'limit_reached' or 'rate_limited') if the limits do not allow one
 * more private lab (and, for a what-if fork, one more fork) for this owner and address, counted in
 * `db`. createPrivateLab calls it under the lock, in the transaction that inserts; a caller with costly
 * work to do before it opens a lab (a fork reads the original's history) calls it first without the
 * lock, so that a refused request costs two counts and nothing else.
 */
export async function checkPrivateLabLimits(
  input: {
    ownerHash: string;
    openedFrom: string;
    opensPerAddress: number;
    opensWindowMs: number;
    fork: boolean;
    /** Private labs open at once in the room; FENCING_LAB_MAX_PRIVATE_LABS (or 120) if not given. */
    maxOpen?: number;
  },
  db: Queryable = getPool(),
): Promise<void> {
  const { rows: counted } = await db.query<PrivateLabCounts>(
    `SELECT count(*) FILTER (WHERE closed_at IS NULL)::int AS open,
            count(*) FILTER (WHERE closed_at IS NULL AND owner_hash = $1)::int AS mine,
            count(*) FILTER (WHERE opened_from = $2
                               AND created_at > clock_timestamp() - make_interval(secs => $3::double precision / 1000))::int
              AS "fromAddress",
            count(*) FILTER (WHERE closed_at IS NULL AND opened_from = $2)::int AS "openFromAddress"
       FROM labs WHERE visibility = 'private'`,
    [input.ownerHash, input.openedFrom, input.opensWindowMs],
  );
  const refusal = privateLabRefusal(counted[0] as PrivateLabCounts, {
    opensPerAddress: input.opensPerAddress,
    maxOpen: input.maxOpen ?? roomSettings().maxPrivateLabs,
  });
  if (refusal) throw new FencingError(refusal.code, refusal.message);
  if (!input.fork) return;
  const { rows: forks } = await db.query<{ forks: number }>(
    `SELECT count(*)::int AS forks FROM labs
      WHERE fork IS NOT NULL AND owner_hash = $1
        AND created_at > clock_timestamp() - make_interval(secs => $2::double precision / 1000)`,
    [input.ownerHash, input.opensWindowMs],
  );
  const tooMany = forkRefusal(forks[0]?.forks ?? 0);
  if (tooMany) throw new FencingError(tooMany.code, tooMany.message);
}

/**
 * Opens a private lab of the given kind on a fresh row of its own, if the limits allow: the room's
 * and the owner's open labs, and the labs the client address opened in the last window, are counted
 * under one advisory lock in the transaction that inserts the lab, so that concurrent requests
 * cannot all pass the same count. Throws FencingError ('limit_reached', 'rate_limited') otherwise.
 */
export async function createPrivateLab(input: {
  kind: LabId;
  ownerHash: string;
  openedFrom: string;
  initialValue: string;
  opensPerAddress: number;
  opensWindowMs: number;
  /** Private labs open at once in the room; FENCING_LAB_MAX_PRIVATE_LABS (or 120) if not given. */
  maxOpen?: number;
  /**
   * A what-if fork: counted against the owner's forks in the window too, and kept with the lab. A
   * broken lab's row starts at the original's token; a fenced row is born at the highest token handed
   * out so far, whatever is asked (createProtectedRow), so no earlier grant can ever write it.
   */
  fork?: { record: ForkRecord; rowToken: number };
}): Promise<LabRecord> {
  const id = privateLabIdFrom(randomBytes(10));
  return withTransaction(async (client) => {
    await client.query(`SELECT ${PRIVATE_LABS_LOCK}`);
    await checkPrivateLabLimits({ ...input, fork: input.fork !== undefined }, client);
    let rowId: number;
    if (writesProtectedRows(input.kind)) {
      // Born at the highest token handed out so far: no earlier grant can ever write it.
      rowId = (await createProtectedRow({ value: input.initialValue }, client)).id;
    } else {
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO unguarded_rows (id, lab, value, last_token, last_token_text)
         VALUES (nextval('unguarded_row_ids'), $1, $2, $3::bigint, $3::bigint::text) RETURNING id`,
        [id, input.initialValue, input.fork?.rowToken ?? 0],
      );
      rowId = (rows[0] as { id: number }).id;
    }
    const { rows } = await client.query<LabRow>(
      // Its join key: the workers its server starts present it to worker_join (0020); nobody else has it.
      `INSERT INTO labs (id, kind, row_id, resource, visibility, owner_hash, opened_from, last_used_at, join_key, fork)
       VALUES ($1, $2, $3, $4, 'private', $5, $6, clock_timestamp(),
               replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''), $7)
       RETURNING ${LAB_COLUMNS}`,
      [
        id,
        input.kind,
        rowId,
        privateResourceOf(id),
        input.ownerHash,
        input.openedFrom,
        input.fork ? JSON.stringify(input.fork.record) : null,
      ],
    );
    return reshapeLab(rows[0] as LabRow);
  });
}

/** What a what-if fork lab was forked from (labs.fork), or undefined for a lab that is not a fork. */
export async function readLabFork(id: string, db: Queryable = getPool()): Promise<ForkRecord | undefined> {
  const { rows } = await db.query<{ fork: ForkRecord | null }>('SELECT fork FROM labs WHERE id = $1', [id]);
  return rows[0]?.fork ?? undefined;
}

export async function listPrivateLabs(
  input: { ownerHash: string; includeClosed?: boolean },
  db: Queryable = getPool(),
): Promise<LabRecord[]> {
  const { rows } = await db.query<LabRow>(
    `SELECT ${LAB_COLUMNS} FROM labs
      WHERE visibility = 'private' AND owner_hash = $1 AND history_deleted_at IS NULL AND ($2 OR closed_at IS NULL)
      ORDER BY created_at DESC LIMIT 50`,
    [input.ownerHash, input.includeClosed ?? false],
  );
  return rows.map(reshapeLab);
}

/** The open private labs opened from this address (the sweeps' run labs: `sweep`), oldest first. */
export async function listOpenLabsOpenedFrom(address: string, db: Queryable = getPool()): Promise<LabRecord[]> {
  const { rows } = await db.query<LabRow>(
    `SELECT ${LAB_COLUMNS} FROM labs
      WHERE visibility = 'private' AND closed_at IS NULL AND opened_from = $1
      ORDER BY created_at`,
    [address],
  );
  return rows.map(reshapeLab);
}

/**
 * Records that these open labs were used just now (database clock), for the idle checks of every
 * app server on the database (claimIdleLabs; a shared lab's idle watch, db/lab-doors.ts).
 */
export async function recordLabUse(ids: readonly string[], db: Queryable = getPool()): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE labs SET last_used_at = clock_timestamp()
      WHERE id = ANY($1) AND closed_at IS NULL`,
    [ids],
  );
}

/**
 * The idle check's choice: marks closed, in one statement, the open private labs not used (through
 * any app server) for `idleMs` by the database's clock, except `keepOpen` (labs the caller has live
 * viewers on), and returns them. Rows another check (or a use) holds are skipped, and a lab is
 * returned only to the check that closed it, so two servers checking at once never both close it.
 * The caller then stops its workers and ends it for good with finishIdleClose.
 */
export async function claimIdleLabs(
  input: { idleMs: number; keepOpen: readonly string[] },
  db: Queryable = getPool(),
): Promise<LabRecord[]> {
  const { rows } = await db.query<LabRow>(
    `UPDATE labs SET closed_at = clock_timestamp()
      WHERE closed_at IS NULL
        AND last_used_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000)
        AND id IN (SELECT id FROM labs
                    WHERE visibility = 'private' AND closed_at IS NULL AND NOT (id = ANY($2))
                      AND last_used_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000)
                    FOR UPDATE SKIP LOCKED)
      RETURNING ${LAB_COLUMNS}`,
    [input.idleMs, input.keepOpen],
  );
  return rows.map(reshapeLab);
}

/**
 * Ends a lab claimIdleLabs closed, once its workers here are stopped: its run ends (any worker still
 * out there is refused from now on, as after closeLab) and its lease is released.
 */
export async function finishIdleClose(id: string): Promise<void> {
  await withTransaction(async (client) => {
    await bumpLabGeneration(id, client);
    await client.query(
      "DELETE FROM leases WHERE resource = (SELECT resource FROM labs WHERE id = $1 AND visibility = 'private')",
      [id],
    );
  });
}

/**
 * Marks a private lab closed and releases its lease, in one transaction: it keeps its history (until
 * the history pruner) and its row, and takes no more commands.
 */
export async function closeLab(id: string): Promise<void> {
  await withTransaction(async (client) => {
    // A close ends the lab's last run, as a reset does: any worker still out there (a remote one
    // asleep through it) is refused by the database from now on (0008_lab_generations.sql). First,
    // as in a reset, so that the lock order stays generation lock, then rows.
    const open = await findLab(id, client);
    if (open?.visibility === 'private' && !open.closedAt) await bumpLabGeneration(id, client);
    const { rows } = await client.query<{ resource: string }>(
      `UPDATE labs SET closed_at = clock_timestamp()
        WHERE id = $1 AND visibility = 'private' AND closed_at IS NULL RETURNING resource`,
      [id],
    );
    const closed = rows[0];
    if (!closed) {
      if (!(await findLab(id, client))) throw new FencingError('invalid_input', `no lab ${id}`);
      return;
    }
    await client.query('DELETE FROM leases WHERE resource = $1', [closed.resource]);
  });
}

/**
 * The history pruner's statement: for each private lab closed more than `retentionMs` ago (by the database's
 * clock), deletes its history: its events, its remote workers and their commands, a lease a late
 * remote worker may have taken since, and a broken lab's unguarded row. A fenced lab's protected
 * row is never touched (protected rows are never deleted, see 0005), nor the token sequence; the lab's
 * record stays, marked, so that its id is never reused and its row stays off the shared pages.
 * Returns the ids of the labs it swept.
 */
export async function deleteExpiredLabHistories(input: { retentionMs: number; limit?: number }): Promise<string[]> {
  return withTransaction(async (client) => {
    const { rows } = await client.query<{ id: string; resource: string; kind: string }>(
      `UPDATE labs SET history_deleted_at = clock_timestamp()
        WHERE id IN (SELECT id FROM labs
                      WHERE visibility = 'private' AND history_deleted_at IS NULL AND closed_at IS NOT NULL
                        AND closed_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000)
                      ORDER BY closed_at LIMIT $2
                      FOR UPDATE SKIP LOCKED)
        RETURNING id, resource, kind`,
      [input.retentionMs, input.limit ?? 100],
    );
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    // A your-guard lab's schema and role, if closing did not drop them (a server that died in between).
    for (const row of rows)
      if (isLabId(row.kind) && takesTraineeGuard(row.kind)) await client.query('SELECT fl_drop_guard($1)', [row.id]);
    await client.query('DELETE FROM worker_commands WHERE lab = ANY($1)', [ids]);
    await client.query('DELETE FROM remote_workers WHERE lab = ANY($1)', [ids]);
    await client.query('DELETE FROM leases WHERE resource = ANY($1)', [rows.map((row) => row.resource)]);
    // The guards trainees submitted there (your-guard labs), with their counterexamples.
    await client.query('DELETE FROM guard_attempts WHERE lab = ANY($1)', [ids]);
    // Broken labs' rows only: unguarded_rows never holds a protected row.
    await client.query('DELETE FROM unguarded_rows WHERE lab = ANY($1)', [ids]);
    // As a reset does (db/events.ts clearEvents), under each lab's events lock (in one order), taken last: a straggler's event
    // lands wholly before the boundary (and goes) or after it, and a feed replaying the lab is told.
    for (const id of [...ids].sort()) {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('fencing_lab.events'), hashtext($1))", [id]);
    }
    await client.query(
      `WITH gone AS (DELETE FROM events WHERE lab = ANY($1) RETURNING lab, id)
       SELECT pg_notify('fencing_events', json_build_object('lab', lab, 'reset', true, 'upTo', max(id))::text)
         FROM gone GROUP BY lab`,
      [ids],
    );
    return ids;
  });
}

/** A private lab's join key, for the workers this server starts in it (undefined for a shared lab). */
export async function labJoinKey(id: string, db: Queryable = getPool()): Promise<string | undefined> {
  const { rows } = await db.query<{ join_key: string | null }>('SELECT join_key FROM labs WHERE id = $1', [id]);
  return rows[0]?.join_key ?? undefined;
}
