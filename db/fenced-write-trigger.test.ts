import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { freshResource, freshRow, grant, TEST_LAB, waitForExpiry } from '../lib/testing/fixtures';
import { fencedWrite, readProtectedRow } from './fenced-write';
import { closePool, newClient } from './pool';

/*
 * These tests deliberately write protected_rows WITHOUT the fenced write, as someone in psql would, to
 * prove the database itself refuses what the fenced write would refuse. This file is the one exception
 * in db/fenced-write-only-writer.test.ts.
 */

let psql: pg.Client;
before(async () => {
  psql = newClient();
  await psql.connect();
});
after(async () => {
  await psql.end();
  await closePool();
});

async function rowWithTwoTokens() {
  const row = await freshRow();
  const resource = freshResource();
  const older = await grant(resource, 'A', 150);
  await waitForExpiry(older);
  const newer = await grant(resource, 'B', 150);
  await fencedWrite({ lab: TEST_LAB, rowId: row.id, value: 'B-1', token: newer.token, actor: 'B' });
  return { row, older, newer };
}

test('a direct UPDATE that presents an older token is refused by the database', async () => {
  const { row, older, newer } = await rowWithTwoTokens();
  await assert.rejects(
    psql.query('UPDATE protected_rows SET value = $1, last_token = $2 WHERE id = $3', ['A-late', older.token, row.id]),
    (error: { code?: string; message?: string }) =>
      error.code === 'FL001' &&
      error.message === `stale fencing token ${older.token} (row ${row.id} holds token ${newer.token})`,
  );
  const stored = await readProtectedRow(row.id);
  assert.deepEqual([stored?.value, stored?.lastToken], ['B-1', newer.token]);
});

test('a direct UPDATE that invents a token the sequence never issued is refused', async () => {
  const { row, newer } = await rowWithTwoTokens();
  await assert.rejects(
    psql.query('UPDATE protected_rows SET value = $1, last_token = $2 WHERE id = $3', [
      'blocker',
      '9000000000000000',
      row.id,
    ]),
    (error: { code?: string }) => error.code === 'FL003',
  );
  assert.equal((await readProtectedRow(row.id))?.lastToken, newer.token);
});

test('a protected row cannot be deleted or truncated, so it can never be recreated at an old token', async () => {
  const { row, newer } = await rowWithTwoTokens();
  await assert.rejects(
    psql.query('DELETE FROM protected_rows WHERE id = $1', [row.id]),
    (error: { code?: string }) => error.code === 'FL006',
  );
  await assert.rejects(psql.query('TRUNCATE protected_rows'), (error: { code?: string }) => error.code === 'FL006');
  assert.equal((await readProtectedRow(row.id))?.lastToken, newer.token);
});

test('a new row is born at the highest token issued, whatever the INSERT says: older grants cannot write it', async () => {
  const older = await grant(freshResource(), 'older', 5_000);
  const newer = await grant(freshResource(), 'newer', 5_000);
  const inserted = await psql.query<{ id: number; last_token: string }>(
    "INSERT INTO protected_rows (value, last_token) VALUES ('x', 0) RETURNING id, last_token",
  );
  const row = inserted.rows[0] as { id: number; last_token: string };
  assert.ok(Number(row.last_token) >= newer.token, `born at ${row.last_token}, after token ${newer.token}`);
  const write = await fencedWrite({
    lab: TEST_LAB,
    rowId: row.id,
    value: 'too old',
    token: older.token,
    actor: 'older',
  });
  assert.equal(write.outcome, 'stale');
});

test('documented limit of <=: a direct UPDATE that keeps the current token can still change the value', async () => {
  // What docs/how-it-works.md says: the database cannot tell the current holder from anyone else who
  // presents the current token. Only the fenced write, fed by the lease, knows who that should be.
  const { row, newer } = await rowWithTwoTokens();
  await psql.query('UPDATE protected_rows SET value = $1 WHERE id = $2', ['psql edit', row.id]);
  const stored = await readProtectedRow(row.id);
  assert.deepEqual([stored?.value, stored?.lastToken], ['psql edit', newer.token]);
});
