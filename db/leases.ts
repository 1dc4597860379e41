import 'server-only';
import { holderSchema, leaseTtlMsSchema, parseInput, resourceSchema } from '../lib/model/core/inputs';
import { parseToken, requireToken, type Token } from '../lib/model/core/token';
import { getPool, type Queryable, type Session, toFencingError } from './pool';
import { identityParams, type WorkerIdentity } from './worker-identity';

/*
 * Leases with fencing tokens. Every time is the database's clock (clock_timestamp(), not now(),
 * which is frozen at the start of a transaction). A token is minted with nextval() inside the same
 * committed transaction that records the grant, with synchronous_commit on, so a grant and its
 * token are durable together: measured in ../shared/STACK.md, that is what keeps a crash from
 * handing a token out twice.
 */

export type Lease = { resource: string; holder: string; token: Token; acquiredAt: Date; expiresAt: Date };

export type AcquireResult =
  | { outcome: 'granted'; lease: Lease; tookOverFrom?: Lease }
  | { outcome: 'busy'; heldBy: Lease };

export type RenewResult = { outcome: 'renewed'; lease: Lease } | { outcome: 'lost'; current?: Lease };

export type ReleaseResult = { outcome: 'released' } | { outcome: 'not_held'; current?: Lease };

type LeaseRecord = { resource: string; holder: string; token: string; acquired_at: Date; expires_at: Date };

const LEASE_COLUMNS = 'resource, holder, token, acquired_at, expires_at';

function reshapeLease(row: LeaseRecord): Lease {
  return {
    resource: row.resource,
    holder: row.holder,
    token: parseToken(row.token),
    acquiredAt: row.acquired_at,
    expiresAt: row.expires_at,
  };
}

/**
 * `generation`: the run of the lab the holder joined (see db/lab-generation.ts). Given, every
 * statement refuses (`lab_reset`) a holder from before the lab's last reset. `as`: a worker's identity
 * (db/worker-identity.ts): the call then goes through the worker's own function, which takes the
 * resource, the holder's name, the generation and the token source from the lab and the worker's
 * registration, not from the caller. Workers always give it.
 */
type LeaseRequest = {
  resource: unknown;
  holder: unknown;
  ttlMs: unknown;
  /** The lab the lease belongs to, whose history records it. */
  lab: string;
  generation?: number;
  as?: WorkerIdentity;
};

/**
 * Where a grant's token comes from. Always write_epoch, except in the token-as-text labs, whose own
 * counter (labs.text_epoch, bumped in the grant's transaction) is staged to cross a digit (see
 * 0006_lab_instances.sql). Server-side only, never from a client; a worker's grant takes it from its lab.
 */
export type TokenSource = 'write_epoch' | 'lab_text_epoch';

type LeaseResultRow = {
  outcome: string;
  lease_resource: string | null;
  lease_holder: string | null;
  lease_token: string | null;
  lease_acquired_at: Date | null;
  lease_expires_at: Date | null;
};

function leaseOf(row: LeaseResultRow): Lease | undefined {
  if (row.lease_resource === null) return undefined;
  return reshapeLease({
    resource: row.lease_resource,
    holder: row.lease_holder as string,
    token: row.lease_token as string,
    acquired_at: row.lease_acquired_at as Date,
    expires_at: row.lease_expires_at as Date,
  });
}

async function callLeaseFunction<Row extends LeaseResultRow>(
  sql: string,
  params: unknown[],
  session?: Session,
): Promise<Row> {
  const { rows } = await (session ?? getPool()).query<Row>(sql, params).catch((error: unknown) => {
    throw toFencingError(error);
  });
  return rows[0] as Row;
}

/**
 * Grants the lease if it is free or expired by the database's clock, with a freshly minted token,
 * recorded with the resource it was granted for (db/functions/fl_acquire_lease.sql).
 */
export async function acquireLease(
  request: LeaseRequest & {
    tokenSource?: TokenSource;
    /**
     * 'same-token': the same-token-takeover lab's broken lease service (0021), whose takeover keeps
     * the old holder's token; the database refuses it in any other lab. A worker's grant only.
     */
    takeover?: 'mint' | 'same-token';
  },
  session?: Session,
): Promise<AcquireResult> {
  const tokenSource = request.tokenSource ?? 'write_epoch';
  if (tokenSource !== 'write_epoch' && tokenSource !== 'lab_text_epoch') {
    throw new Error(`unknown token source ${String(request.tokenSource)}`);
  }
  const resource = parseInput(resourceSchema, request.resource);
  const holder = parseInput(holderSchema, request.holder);
  const ttlMs = parseInput(leaseTtlMsSchema, request.ttlMs);
  const { lab } = request;

  type Row = LeaseResultRow & {
    prev_holder: string | null;
    prev_token: string | null;
    prev_acquired_at: Date | null;
    prev_expires_at: Date | null;
  };
  const row = request.as
    ? await callLeaseFunction<Row>(
        request.takeover === 'same-token'
          ? 'SELECT * FROM worker_acquire_lease_same_token($1, $2, $3, $4)'
          : 'SELECT * FROM worker_acquire_lease($1, $2, $3, $4)',
        [...identityParams(request.as), ttlMs],
        session,
      )
    : request.takeover === 'same-token'
      ? await callLeaseFunction<Row>(
          'SELECT * FROM fl_broken_takeover_same_token($1, $2, $3, $4, $5)',
          [resource, holder, ttlMs, lab, request.generation ?? null],
          session,
        )
      : await callLeaseFunction<Row>(
          'SELECT * FROM fl_acquire_lease($1, $2, $3, $4, $5, $6)',
          [resource, holder, ttlMs, lab, request.generation ?? null, tokenSource === 'lab_text_epoch'],
          session,
        );
  const lease = leaseOf(row);
  if (!lease) throw new Error(`lease on ${resource} vanished during acquire`);
  if (row.outcome === 'busy') return { outcome: 'busy', heldBy: lease };
  if (row.prev_holder === null) return { outcome: 'granted', lease };
  const tookOverFrom = reshapeLease({
    resource: lease.resource,
    holder: row.prev_holder,
    token: row.prev_token as string,
    acquired_at: row.prev_acquired_at as Date,
    expires_at: row.prev_expires_at as Date,
  });
  return { outcome: 'granted', lease, tookOverFrom };
}

/** Extends the lease, only while this holder's token is the current one and not expired. */
export async function renewLease(request: LeaseRequest & { token: unknown }, session?: Session): Promise<RenewResult> {
  const resource = parseInput(resourceSchema, request.resource);
  const holder = parseInput(holderSchema, request.holder);
  const ttlMs = parseInput(leaseTtlMsSchema, request.ttlMs);
  const token = requireToken(request.token);
  const { lab } = request;

  const row = request.as
    ? await callLeaseFunction(
        'SELECT * FROM worker_renew_lease($1, $2, $3, $4, $5)',
        [...identityParams(request.as), token, ttlMs],
        session,
      )
    : await callLeaseFunction(
        'SELECT * FROM fl_renew_lease($1, $2, $3, $4, $5, $6)',
        [resource, holder, token, ttlMs, lab, request.generation ?? null],
        session,
      );
  const lease = leaseOf(row);
  if (row.outcome === 'renewed' && lease) return { outcome: 'renewed', lease };
  return lease ? { outcome: 'lost', current: lease } : { outcome: 'lost' };
}

/** Gives the lease up, only if this holder's token is still the current one. */
export async function releaseLease(
  request: {
    resource: unknown;
    holder: unknown;
    token: unknown;
    lab: string;
    generation?: number;
    as?: WorkerIdentity;
  },
  session?: Session,
): Promise<ReleaseResult> {
  const resource = parseInput(resourceSchema, request.resource);
  const holder = parseInput(holderSchema, request.holder);
  const token = requireToken(request.token);
  const { lab } = request;

  const row = request.as
    ? await callLeaseFunction(
        'SELECT * FROM worker_release_lease($1, $2, $3, $4)',
        [...identityParams(request.as), token],
        session,
      )
    : await callLeaseFunction(
        'SELECT * FROM fl_release_lease($1, $2, $3, $4, $5)',
        [resource, holder, token, lab, request.generation ?? null],
        session,
      );
  if (row.outcome === 'released') return { outcome: 'released' };
  const current = leaseOf(row);
  return current ? { outcome: 'not_held', current } : { outcome: 'not_held' };
}

export async function readLease(resource: string, db: Queryable = getPool()): Promise<Lease | undefined> {
  const { rows } = await db.query<LeaseRecord>(`SELECT ${LEASE_COLUMNS} FROM leases WHERE resource = $1`, [resource]);
  return rows[0] ? reshapeLease(rows[0]) : undefined;
}

/**
 * Records the expiry of every lease that has run out by the database's clock and is not recorded
 * yet (once per lease: the next taker may have recorded it already). Returns how many it recorded.
 * A lease a holder is renewing right now is left to the expiry recorder's next pass (0022 fl_record_expired_leases):
 * its end is the renewal's once that commits.
 */
export async function recordExpiredLeases(db: Queryable = getPool()): Promise<number> {
  const { rows } = await db.query<{ recorded: number }>('SELECT fl_record_expired_leases() AS recorded');
  return rows[0]?.recorded ?? 0;
}

/**
 * A forced takeover (0026_forced_takeover.sql): ends the resource's lease now by the database's
 * clock, its holder not told, so that another worker may take it while the holder still writes.
 * For chaos runs only. Returns whose lease it ended, or nothing if none was running.
 */
export async function revokeLease(
  resource: string,
  db: Queryable = getPool(),
): Promise<{ holder: string; token: Token } | undefined> {
  const { rows } = await db.query<{ holder: string; token: string }>('SELECT holder, token FROM fl_revoke_lease($1)', [
    resource,
  ]);
  const row = rows[0];
  return row ? { holder: row.holder, token: parseToken(row.token) } : undefined;
}

/** Removes a lab's lease, whoever holds it: for resetting a lab whose workers are all stopped. */
export async function clearLease(resource: string, db: Queryable = getPool()): Promise<void> {
  await db.query('DELETE FROM leases WHERE resource = $1', [resource]);
}

export type LeaseView = Lease & { expired: boolean; remainingMs: number; dbNow: Date };

/**
 * The leases everyone may see (none of a private lab's), with their state judged by the database's
 * clock. Private labs are left out in the query, before the limit, so that they cannot crowd out
 * the shared ones.
 */
export async function listSharedLeases(db: Queryable = getPool()): Promise<LeaseView[]> {
  const { rows } = await db.query<LeaseRecord & { expired: boolean; remaining_ms: number; db_now: Date }>(
    `SELECT ${LEASE_COLUMNS}, expires_at <= clock_timestamp() AS expired,
            greatest(0, extract(epoch FROM expires_at - clock_timestamp()) * 1000)::float8 AS remaining_ms,
            clock_timestamp() AS db_now
       FROM leases l
      WHERE NOT EXISTS (SELECT 1 FROM labs b WHERE b.resource = l.resource AND b.visibility = 'private')
      ORDER BY resource LIMIT 200`,
  );
  return rows.map((row) => ({
    ...reshapeLease(row),
    expired: row.expired,
    remainingMs: row.remaining_ms,
    dbNow: row.db_now,
  }));
}
