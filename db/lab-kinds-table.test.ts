import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { hasDriftingClock, LAB_IDS } from '../lib/model/lab-kinds';
import { readFunctionFiles } from './apply-functions';
import { newClient } from './pool';

/*
 * Lab kinds are rows of lab_kinds, which labs reference, with the traits the database's functions
 * ask; no CHECK on labs.kind to rebuild for a new kind.
 */

const MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
let client: pg.Client;
before(async () => {
  client = newClient();
  await client.connect();
});
after(async () => {
  await client.end();
});

test('the database knows the same kinds as the app, each with its traits', async () => {
  const { rows } = await client.query<{ id: string; row_table: string; drifting_clock: boolean }>(
    'SELECT id, row_table, drifting_clock FROM lab_kinds ORDER BY id',
  );
  assert.deepEqual(
    rows.map((r) => r.id),
    [...LAB_IDS].sort(),
  );
  for (const row of rows) {
    assert.equal(row.drifting_clock, hasDriftingClock(row.id as (typeof LAB_IDS)[number]), row.id);
    assert.equal(row.row_table, row.id === 'fenced' ? 'protected_rows' : 'unguarded_rows', row.id);
  }
});

test('a lab of a kind the table does not hold is refused by its foreign key', async () => {
  await client.query('BEGIN');
  try {
    await assert.rejects(
      client.query(
        `INSERT INTO labs (id, kind, row_id, resource, visibility) VALUES ('k-test', 'no-such-kind', 9999, 'k-test', 'shared')`,
      ),
      (error: Error & { code?: string; constraint?: string }) => {
        assert.equal(error.code, '23503');
        assert.equal(error.constraint, 'labs_kind_fkey');
        return true;
      },
    );
  } finally {
    await client.query('ROLLBACK');
  }
  const { rows } = await client.query(
    "SELECT conname FROM pg_constraint WHERE conrelid = 'labs'::regclass AND conname = 'labs_kind_check'",
  );
  assert.deepEqual(rows, [], 'no CHECK lists the kinds any more');
});

test('migrations from lab_kinds on never rebuild a CHECK of the kinds', async () => {
  const newer = (await readdir(MIGRATIONS)).filter((name) => name.slice(0, 4) > '0039');
  for (const file of newer) {
    assert.doesNotMatch(await readFile(`${MIGRATIONS}${file}`, 'utf8'), /labs_kind_check/, file);
  }
});

test("a broken lab's write runs the policy its kind's row names, and no write its kind lacks", async () => {
  const { rows } = await client.query<{ kind: string; mode: string; policy: string }>(
    'SELECT kind, mode, policy FROM lab_kind_writes ORDER BY kind, mode',
  );
  const policy = (kind: string, mode: string) => rows.find((r) => r.kind === kind && r.mode === mode)?.policy;
  assert.equal(policy('token-as-text', 'text'), 'text');
  assert.equal(policy('bypass', 'plain'), 'none');
  assert.equal(policy('delayed-packet', 'packet'), 'fenced');
  assert.equal(policy('no-fencing', 'fenced'), undefined);
  // A mode the lab's kind has not: refused by the database, whoever asks.
  await assert.rejects(
    client.query(
      "SELECT * FROM fl_broken_write('no-fencing', (SELECT row_id FROM labs WHERE id = 'no-fencing'), 'fenced', 'x', 1, 'A', NULL)",
    ),
    /has no fenced write/,
  );
});

test("the database's functions ask a kind's traits, never its id", async () => {
  const { rows } = await client.query<{ id: string }>('SELECT id FROM lab_kinds');
  const found: string[] = [];
  for (const f of await readFunctionFiles()) {
    if (f.name === 'fl_may_write') continue; // its names are policies ('fenced' is one), not kinds
    const sql = f.sql.replace(/--.*$/gm, '').replace(/fl_may_write\('\w+'/g, 'fl_may_write(');
    for (const { id } of rows) if (sql.includes(`'${id}'`)) found.push(`${f.file}: '${id}'`);
  }
  assert.deepEqual(found, []);
});
