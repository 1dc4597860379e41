import 'server-only';
import { getPool, type Queryable } from './pool';

/*
 * Trainer sessions (0010_trainer_sessions.sql): stored by the hash of their id, judged by the
 * database's clock. The id itself lives only in the trainer's cookie.
 */

export async function createTrainerSession(
  input: { idHash: string; keyProof: string; ttlMs: number },
  db: Queryable = getPool(),
): Promise<void> {
  await db.query(
    `INSERT INTO trainer_sessions (id_hash, key_proof, expires_at)
     VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3::double precision / 1000))`,
    [input.idHash, input.keyProof, input.ttlMs],
  );
}

/** Whether the session exists, was opened with this key, has not expired, and was not ended. */
export async function isLiveTrainerSession(
  input: { idHash: string; keyProof: string },
  db: Queryable = getPool(),
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM trainer_sessions
      WHERE id_hash = $1 AND key_proof = $2 AND revoked_at IS NULL AND expires_at > clock_timestamp()`,
    [input.idHash, input.keyProof],
  );
  return rows.length === 1;
}

/** Ends the session for good: its cookie, wherever it was copied, drives nothing any more. */
export async function revokeTrainerSession(idHash: string, db: Queryable = getPool()): Promise<void> {
  await db.query(
    'UPDATE trainer_sessions SET revoked_at = clock_timestamp() WHERE id_hash = $1 AND revoked_at IS NULL',
    [idHash],
  );
}

/** Forgets sessions that can never count again (expired or ended); returns how many. */
export async function deleteDeadTrainerSessions(db: Queryable = getPool()): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM trainer_sessions WHERE expires_at <= clock_timestamp() OR revoked_at IS NOT NULL',
  );
  return rowCount ?? 0;
}
