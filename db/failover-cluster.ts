import pg from 'pg';

/*
 * Every statement the failover lab sends to its own primary/standby pair (not to the app's
 * database: the lab's history lives there, db/events.ts). The pair holds a lock service's three
 * things: the token sequence, the lease table and the protected row, guarded as the fenced lab's
 * row is (`last_token <= $token`, in the write's own statement).
 *
 * Tokens cross as decimal strings and are compared as BigInt (node-postgres returns int8 as text).
 */

export type FailoverSession = pg.Client;

/** One connection to one server of the pair; errors of a server that dies are the caller's to see. */
export async function connectFailoverServer(url: string, { timeoutMs = 5_000 } = {}): Promise<FailoverSession> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * The protected row's table and its one row, as the lock service has them (the explorer's scratch
 * servers, db/explore-failover.ts, are made with the same statements).
 */
export const PROTECTED_ROW_SCHEMA = `
    CREATE TABLE fo_rows (
      id int PRIMARY KEY,
      value text NOT NULL,
      last_token bigint NOT NULL
    );
    INSERT INTO fo_rows (id, value, last_token) VALUES (1, 'initial', 0);
  `;

/** The lock service's schema, on the primary (the standby receives it by replication). */
export async function createLockServiceSchema(session: FailoverSession): Promise<void> {
  await session.query(`
    CREATE SEQUENCE fo_token_seq;
    CREATE TABLE fo_leases (
      resource text PRIMARY KEY,
      holder text NOT NULL,
      token bigint NOT NULL,
      expires_at timestamptz NOT NULL
    );
    ${PROTECTED_ROW_SCHEMA}
  `);
}

export type Grant = { resource: string; holder: string; token: string; expiresAt: Date };

/**
 * Grants `resource` to `holder` when it is free or its lease has run out, minting the token in the
 * same committed transaction as the lease (the durable way; see db/leases.ts). Undefined when
 * another holder's lease still runs. Under synchronous replication the COMMIT returns only once
 * the standby has the grant: this call then waits as long as replication is cut.
 */
export async function grantLease(
  session: FailoverSession,
  request: { resource: string; holder: string; ttlMs: number },
): Promise<Grant | undefined> {
  await session.query('BEGIN');
  try {
    const { rows } = await session.query<{ token: string; expires_at: Date }>(
      `WITH free AS (
         SELECT 1 FROM (SELECT 1) one
         WHERE NOT EXISTS (SELECT 1 FROM fo_leases WHERE resource = $1 AND expires_at > clock_timestamp())
       )
       INSERT INTO fo_leases (resource, holder, token, expires_at)
       SELECT $1, $2, nextval('fo_token_seq'), clock_timestamp() + make_interval(secs => $3::double precision / 1000)
       FROM free
       ON CONFLICT (resource) DO UPDATE
         SET holder = EXCLUDED.holder, token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
       RETURNING token::text AS token, expires_at`,
      [request.resource, request.holder, request.ttlMs],
    );
    await session.query('COMMIT');
    const row = rows[0];
    return row
      ? { resource: request.resource, holder: request.holder, token: row.token, expiresAt: row.expires_at }
      : undefined;
  } catch (error) {
    // A failed ROLLBACK leaves nothing to undo; the first error is rethrown.
    await session.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export type FencedRowWriteResult = { accepted: true } | { accepted: false; rowToken: string };

/** The lab's fenced write, $1 the value and $2 the token (the explorer runs this very function on its scratch rows). */
export const FENCED_ROW_WRITE = 'UPDATE fo_rows SET value = $1, last_token = $2 WHERE id = 1 AND last_token <= $2';

/** The fenced write: accepted only if the row's token is not newer than `token`, in one statement. */
export async function writeFencedRow(
  session: FailoverSession,
  write: { value: string; token: string },
): Promise<FencedRowWriteResult> {
  const { rowCount } = await session.query(FENCED_ROW_WRITE, [write.value, write.token]);
  if (rowCount === 1) return { accepted: true };
  const row = await readProtectedRow(session);
  return { accepted: false, rowToken: row.lastToken };
}

export type ProtectedRow = { value: string; lastToken: string };

export async function readProtectedRow(session: FailoverSession): Promise<ProtectedRow> {
  const { rows } = await session.query<{ value: string; last_token: string }>(
    'SELECT value, last_token::text AS last_token FROM fo_rows WHERE id = 1',
  );
  const row = rows[0];
  if (!row) throw new Error('the protected row is missing');
  return { value: row.value, lastToken: row.last_token };
}

export async function readLease(session: FailoverSession, resource: string): Promise<Grant | undefined> {
  const { rows } = await session.query<{ holder: string; token: string; expires_at: Date }>(
    'SELECT holder, token::text AS token, expires_at FROM fo_leases WHERE resource = $1',
    [resource],
  );
  const row = rows[0];
  return row ? { resource, holder: row.holder, token: row.token, expiresAt: row.expires_at } : undefined;
}

/**
 * The sequence as this server has it. On the primary, `lastValue` is the last token handed out and
 * `logCount` how many more it may hand out before it writes a new WAL record for the sequence
 * (PostgreSQL logs 32 values ahead). On a standby, `lastValue` is the value the last replayed
 * record covers: once promoted, it hands out tokens from the next one on.
 */
export async function readTokenSequence(session: FailoverSession): Promise<{ lastValue: string; logCount: number }> {
  const { rows } = await session.query<{ last_value: string; log_cnt: string }>(
    'SELECT last_value::text AS last_value, log_cnt::text AS log_cnt FROM fo_token_seq',
  );
  const row = rows[0];
  if (!row) throw new Error('the token sequence is missing');
  return { lastValue: row.last_value, logCount: Number(row.log_cnt) };
}

/** The standby's streaming connection as the primary sees it (undefined when none is connected). */
export async function readReplicationState(
  session: FailoverSession,
): Promise<{ state: string; syncState: string; replayLsn: string | null } | undefined> {
  const { rows } = await session.query<{ state: string; sync_state: string; replay_lsn: string | null }>(
    'SELECT state, sync_state, replay_lsn::text AS replay_lsn FROM pg_stat_replication ORDER BY backend_start DESC LIMIT 1',
  );
  const row = rows[0];
  return row ? { state: row.state, syncState: row.sync_state, replayLsn: row.replay_lsn } : undefined;
}

/** The primary's current WAL position, and whether the standby has replayed up to it. */
export async function standbyHasReplayed(primary: FailoverSession, standby: FailoverSession): Promise<boolean> {
  const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
  const lsn = rows[0]?.lsn;
  const replayed = await standby.query<{ caught_up: boolean }>(
    'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught_up',
    [lsn],
  );
  return replayed.rows[0]?.caught_up === true;
}

export async function isInRecovery(session: FailoverSession): Promise<boolean> {
  const { rows } = await session.query<{ in_recovery: boolean }>('SELECT pg_is_in_recovery() AS in_recovery');
  return rows[0]?.in_recovery === true;
}

/** Promotes a standby (`pg_promote`, waiting until it accepts writes). */
export async function promoteStandby(session: FailoverSession, { waitSeconds = 30 } = {}): Promise<void> {
  const { rows } = await session.query<{ promoted: boolean }>('SELECT pg_promote(true, $1) AS promoted', [waitSeconds]);
  if (rows[0]?.promoted !== true) throw new Error(`the standby was not promoted within ${waitSeconds} s`);
}
