import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { FencingPolicy } from '../lib/labs/define';
import { LAB_IDS, LABS, type LabId } from '../lib/labs/index';
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

type KindRow = {
  id: string;
  row_table: string;
  own_grant_only: boolean;
  text_epoch: boolean;
  drifting_clock: boolean;
  token_source: string;
  has_workers: boolean;
  trainee_guard: boolean;
};

/** A definition (lib/labs/<kind>.ts) as the lab_kinds row it must agree with. */
function rowOf(id: LabId): KindRow {
  const { table, traits } = LABS[id];
  return {
    id,
    row_table: table,
    own_grant_only: traits.ownGrantOnly,
    text_epoch: traits.textEpoch,
    drifting_clock: traits.clock === 'worker-may-drift',
    token_source: traits.tokenSource,
    has_workers: traits.runner !== 'failover-pair',
    trainee_guard: traits.fencing === 'trainee-guard',
  };
}

/** The policies fl_may_write applies to a supervised kind's writes (lab_kind_writes), by its fencing trait. */
const WRITE_POLICIES: Record<FencingPolicy, string[]> = {
  'fenced-write': ['fenced'],
  none: ['none'],
  'app-check': ['none', 'refused'],
  'text-compare': ['text'],
  'catch-up-bypass': ['fenced', 'none'],
  'trainee-guard': [],
};

test('the database knows the same kinds as lib/labs, each with the same traits', async () => {
  const { rows } = await client.query<KindRow>(
    `SELECT id, row_table, own_grant_only, text_epoch, drifting_clock, token_source, has_workers, trainee_guard
       FROM lab_kinds ORDER BY id`,
  );
  assert.deepEqual(
    rows,
    [...LAB_IDS].sort().map((id) => rowOf(id)),
  );
});

test("a kind's writes in lab_kind_writes are the policies its fencing trait names", async () => {
  const { rows } = await client.query<{ kind: string; policies: string[] }>(
    'SELECT kind, array_agg(DISTINCT policy ORDER BY policy) AS policies FROM lab_kind_writes GROUP BY kind',
  );
  const policies = new Map(rows.map((r) => [r.kind, r.policies]));
  for (const id of LAB_IDS) {
    const { traits } = LABS[id];
    const expected = traits.runner === 'supervised-workers' ? WRITE_POLICIES[traits.fencing] : [];
    assert.deepEqual(policies.get(id) ?? [], expected, id);
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
