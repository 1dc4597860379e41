import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { closePool, getPool } from './pool';
import {
  createTrainerSession,
  deleteDeadTrainerSessions,
  isLiveTrainerSession,
  revokeTrainerSession,
} from './trainer-sessions';

/* Trainer sessions by the database's clock: live until they expire or are ended, bound to the key. */

after(closePool);

const newHash = () => randomBytes(32).toString('hex');

test('a session is live until ended, and never again after', async () => {
  const idHash = newHash();
  await createTrainerSession({ idHash, keyProof: 'proof-1', ttlMs: 60_000 });
  assert.equal(await isLiveTrainerSession({ idHash, keyProof: 'proof-1' }), true);
  assert.equal(await isLiveTrainerSession({ idHash, keyProof: 'proof-2' }), false, 'another key: not honoured');
  await revokeTrainerSession(idHash);
  assert.equal(await isLiveTrainerSession({ idHash, keyProof: 'proof-1' }), false);
});

test('an expired session is refused, and dead sessions are forgotten', async () => {
  const idHash = newHash();
  await createTrainerSession({ idHash, keyProof: 'proof-1', ttlMs: 60_000 });
  await getPool().query(
    "UPDATE trainer_sessions SET expires_at = clock_timestamp() - interval '1 second' WHERE id_hash = $1",
    [idHash],
  );
  assert.equal(await isLiveTrainerSession({ idHash, keyProof: 'proof-1' }), false);
  const live = newHash();
  await createTrainerSession({ idHash: live, keyProof: 'proof-1', ttlMs: 60_000 });
  assert.ok((await deleteDeadTrainerSessions()) >= 1);
  const { rows } = await getPool().query('SELECT id_hash FROM trainer_sessions WHERE id_hash = ANY($1)', [
    [idHash, live],
  ]);
  assert.deepEqual(
    rows.map((r) => r.id_hash),
    [live],
  );
});
