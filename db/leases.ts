import 'server-only';
import { DEFAULT_LAB } from '../lib/model/events';
import { holderSchema, leaseTtlMsSchema, parseInput, resourceSchema } from '../lib/model/inputs';
import { parseToken, requireToken, type Token } from '../lib/model/token';
import { appendEvent } from './events';
import { generationCheck } from './lab-generation';
import { getPool, type Queryable, type Session, withTransaction } from './pool';

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
 * statement refuses (`lab_reset`) a holder from before the lab's last reset. Workers always give it.
 */
type LeaseRequest = { resource: unknown; holder: unknown; ttlMs: unknown; lab?: string; generation?: number };

/**
 * Where a grant's token comes from. Always write_epoch, except in the token-as-text labs, whose own
 * counter (labs.text_epoch, bumped in the grant's transaction) is staged to cross a digit (see
 * 0006_lab_instances.sql). Server-side only, never from a client.
 */
export type TokenSource = 'write_epoch' | 'lab_text_epoch';
const NEXT_TOKEN: Record<TokenSource, { before: string; token: string }> = {
  write_epoch: { before: '', token: "nextval('write_epoch')" },
  lab_text_epoch: {
    before: `WITH bumped AS (UPDATE labs SET text_epoch = text_epoch + 1 WHERE id = $4 AND ${generationCheck(4, 5)}
                             RETURNING text_epoch)`,
    token: '(SELECT text_epoch FROM bumped)',
  },
};

/** Grants the lease if it is free or expired by the database's clock, with a freshly minted token. */
export async function acquireLease(
  request: LeaseRequest & { tokenSource?: TokenSource },
  session?: Session,
): Promise<AcquireResult> {
  const next = NEXT_TOKEN[request.tokenSource ?? 'write_epoch'];
  if (!next) throw new Error(`unknown token source ${String(request.tokenSource)}`);
  const resource = parseInput(resourceSchema, request.resource);
  const holder = parseInput(holderSchema, request.holder);
  const ttlMs = parseInput(leaseTtlMsSchema, request.ttlMs);
  const lab = request.lab ?? DEFAULT_LAB;
  const generation = request.generation ?? null;

  return withTransaction(async (client) => {
    await client.query('SET LOCAL synchronous_commit = on');
    // The generation is checked on the row before the row is locked: its lock comes first (0008).
    const current = await client.query<LeaseRecord & { expired: boolean }>(
      `SELECT ${LEASE_COLUMNS}, expires_at <= clock_timestamp() AS expired
         FROM leases WHERE resource = $1 AND ${generationCheck(2, 3)} FOR UPDATE`,
      [resource, lab, generation],
    );
    const previous = current.rows[0];
    if (previous && !previous.expired) return { outcome: 'busy', heldBy: reshapeLease(previous) };

    // A takeover mints a new token too: keeping the old one would let the paused holder's writes in.
    const granted = previous
      ? await client.query<LeaseRecord>(
          `${next.before} UPDATE leases SET holder = $2, token = ${next.token}, acquired_at = clock_timestamp(),
                  expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000), lab = $4
            WHERE resource = $1 AND ${generationCheck(4, 5)} RETURNING ${LEASE_COLUMNS}`,
          [resource, holder, ttlMs, lab, generation],
        )
      : await client.query<LeaseRecord>(
          `${next.before} INSERT INTO leases (resource, holder, token, acquired_at, expires_at, lab)
           SELECT $1, $2, ${next.token}, clock_timestamp(),
                  clock_timestamp() + make_interval(secs => $3::double precision / 1000), $4
            WHERE ${generationCheck(4, 5)}
           ON CONFLICT (resource) DO NOTHING RETURNING ${LEASE_COLUMNS}`,
          [resource, holder, ttlMs, lab, generation],
        );
    const row = granted.rows[0];
    if (!row) {
      // Another holder inserted the first lease for this resource a moment ago.
      const winner = await readLease(resource, client);
      if (winner) return { outcome: 'busy', heldBy: winner };
      throw new Error(`lease on ${resource} vanished during acquire`);
    }
    const lease = reshapeLease(row);
    if (previous) {
      await appendEvent(
        client,
        {
          lab,
          actor: previous.holder,
          kind: 'lease_expired',
          resource,
          token: parseToken(previous.token),
          detail: { expiresAt: previous.expires_at.toISOString(), noticedBy: holder },
        },
        { once: true, generation: request.generation },
      );
    }
    await appendEvent(
      client,
      {
        lab,
        actor: holder,
        kind: 'lease_acquired',
        resource,
        token: lease.token,
        detail: { expiresAt: lease.expiresAt.toISOString(), ttlMs },
      },
      { generation: request.generation },
    );
    return previous
      ? { outcome: 'granted', lease, tookOverFrom: reshapeLease(previous) }
      : { outcome: 'granted', lease };
  }, session);
}

/** Extends the lease, only while this holder's token is the current one and not expired. */
export async function renewLease(request: LeaseRequest & { token: unknown }, session?: Session): Promise<RenewResult> {
  const resource = parseInput(resourceSchema, request.resource);
  const holder = parseInput(holderSchema, request.holder);
  const ttlMs = parseInput(leaseTtlMsSchema, request.ttlMs);
  const token = requireToken(request.token);
  const lab = request.lab ?? DEFAULT_LAB;

  return withTransaction(async (client) => {
    const renewed = await client.query<LeaseRecord>(
      `UPDATE leases SET expires_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000)
        WHERE resource = $1 AND holder = $2 AND token = $3 AND expires_at > clock_timestamp()
          AND ${generationCheck(5, 6)}
        RETURNING ${LEASE_COLUMNS}`,
      [resource, holder, token, ttlMs, lab, request.generation ?? null],
    );
    const row = renewed.rows[0];
    if (!row) {
      await refuseStaleGeneration(lab, request.generation, client);
      const current = await readLease(resource, client);
      return current ? { outcome: 'lost', current } : { outcome: 'lost' };
    }
    const lease = reshapeLease(row);
    await appendEvent(
      client,
      {
        lab,
        actor: holder,
        kind: 'lease_renewed',
        resource,
        token,
        detail: { expiresAt: lease.expiresAt.toISOString(), ttlMs },
      },
      { generation: request.generation },
    );
    return { outcome: 'renewed', lease };
  }, session);
}

/** Gives the lease up, only if this holder's token is still the current one. */
export async function releaseLease(
  request: { resource: unknown; holder: unknown; token: unknown; lab?: string; generation?: number },
  session?: Session,
): Promise<ReleaseResult> {
  const resource = parseInput(resourceSchema, request.resource);
  const holder = parseInput(holderSchema, request.holder);
  const token = requireToken(request.token);
  const lab = request.lab ?? DEFAULT_LAB;

  return withTransaction(async (client) => {
    const released = await client.query(
      `DELETE FROM leases WHERE resource = $1 AND holder = $2 AND token = $3 AND ${generationCheck(4, 5)}`,
      [resource, holder, token, lab, request.generation ?? null],
    );
    if (released.rowCount !== 1) {
      await refuseStaleGeneration(lab, request.generation, client);
      const current = await readLease(resource, client);
      return current ? { outcome: 'not_held', current } : { outcome: 'not_held' };
    }
    await appendEvent(
      client,
      { lab, actor: holder, kind: 'lease_released', resource, token },
      { generation: request.generation },
    );
    return { outcome: 'released' };
  }, session);
}

/**
 * Only to say why nothing matched: a holder from before a reset hears `lab_reset`, not "lost" (its
 * lease was cleared by the reset). The decision was made in the statement itself.
 */
async function refuseStaleGeneration(lab: string, generation: number | undefined, db: Queryable): Promise<void> {
  if (generation !== undefined) await db.query(`SELECT ${generationCheck(1, 2)}`, [lab, generation]);
}

export async function readLease(resource: string, db: Queryable = getPool()): Promise<Lease | undefined> {
  const { rows } = await db.query<LeaseRecord>(`SELECT ${LEASE_COLUMNS} FROM leases WHERE resource = $1`, [resource]);
  return rows[0] ? reshapeLease(rows[0]) : undefined;
}

/**
 * Records the expiry of every lease that has run out by the database's clock and is not recorded
 * yet (once per lease: the next taker may have recorded it already). Returns how many it recorded.
 */
export async function recordExpiredLeases(db: Queryable = getPool()): Promise<number> {
  const { rowCount } = await db.query(
    `INSERT INTO events (lab, actor, kind, resource, token, detail)
     SELECT l.lab, l.holder, 'lease_expired', l.resource, l.token,
            jsonb_build_object('expiresAt', to_char(l.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                               'noticedBy', 'database clock')
       FROM leases l
      WHERE l.expires_at <= clock_timestamp()
        AND NOT EXISTS (SELECT 1 FROM events e
                         WHERE e.kind = 'lease_expired' AND e.resource = l.resource AND e.token = l.token)
     -- In the order of the labs' events locks (0009_events_lock_per_lab.sql): two sweeps never deadlock.
     ORDER BY hashtext(l.lab), l.lab, l.expires_at
     ON CONFLICT DO NOTHING`,
  );
  return rowCount ?? 0;
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
