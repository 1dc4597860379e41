import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { readFunctionFiles } from './apply-functions';
import { migrate } from './migrate';
import { newClient } from './pool';

/*
 * db/functions holds every SQL function, one file each, as the database runs it; the migrations hold
 * tables and data. Read from the migrated test database's own catalogue.
 */

const MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
/** The last migration that shipped while functions were still re-created by migrations. */
const LAST_WITH_FUNCTIONS = '0037';

let client: pg.Client;
before(async () => {
  client = newClient();
  await client.connect();
});
after(async () => {
  await client.end();
});

async function functionsInDatabase(): Promise<{ name: string; def: string; acl: string }[]> {
  const { rows } = await client.query(
    `SELECT p.proname AS name, pg_get_functiondef(p.oid) AS def, p.proacl::text AS acl
       FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace ORDER BY p.oid::regprocedure::text`,
  );
  return rows;
}

test('every function of the schema has its file in db/functions, and every file its function', async () => {
  const inDatabase = (await functionsInDatabase()).map((f) => f.name).sort();
  const files = (await readFunctionFiles()).map((f) => f.name).sort();
  assert.deepEqual(files, inDatabase);
});

test('each file defines only the function it is named for, with CREATE OR REPLACE', async () => {
  for (const f of await readFunctionFiles()) {
    const created = [...f.sql.matchAll(/^CREATE (OR REPLACE )?FUNCTION (\w+)\(/gm)];
    assert.deepEqual(
      created.map((m) => [m[1], m[2]]),
      [['OR REPLACE ', f.name]],
      `db/functions/${f.file}`,
    );
  }
});

test('migrating again changes no function, nor who may call it', async () => {
  const before = await functionsInDatabase();
  assert.deepEqual(await migrate(), []);
  assert.deepEqual(await functionsInDatabase(), before);
});

test('migrations after the functions moved out define none', async () => {
  const newer = (await readdir(MIGRATIONS)).filter((name) => name.slice(0, 4) > LAST_WITH_FUNCTIONS);
  for (const file of newer) {
    const sql = await readFile(`${MIGRATIONS}${file}`, 'utf8');
    assert.doesNotMatch(sql, /CREATE (OR REPLACE )?FUNCTION/i, `${file}: put the function in db/functions`);
  }
});

/** A writer's token compared with a row's: `x <= p_token`, `last_token > x`, any order or operator. */
const TOKEN_COMPARISON = /[<>]=?\s*(p_token|[\w.]*last_token\w*)\b|\b(p_token|[\w.]*last_token\w*)(::\w+)?\s*[<>]=?/g;
/**
 * The trigger under the fenced write is a second layer of its own on purpose (a direct UPDATE that lowers
 * last_token, or invents one): were it to call fl_may_write, one bug would break both layers.
 */
const SECOND_LAYER = 'protected_rows_enforce_token.sql';
const withoutComments = (sql: string) => sql.replace(/--.*$/gm, '');

test('the fenced predicate is written once, in fl_may_write, which every fenced write calls', async () => {
  const found: string[] = [];
  for (const f of await readFunctionFiles()) {
    if (f.file === SECOND_LAYER) continue;
    for (const m of withoutComments(f.sql).matchAll(TOKEN_COMPARISON)) found.push(`${f.file}: ${m[0]}`);
  }
  const newer = (await readdir(MIGRATIONS)).filter((name) => name.slice(0, 4) > LAST_WITH_FUNCTIONS);
  for (const file of newer) {
    const sql = withoutComments(await readFile(`${MIGRATIONS}${file}`, 'utf8'));
    for (const m of sql.matchAll(TOKEN_COMPARISON)) found.push(`${file}: ${m[0]}`);
  }
  // One comparison per policy: 'fenced' and 'text' ('none' compares nothing).
  assert.deepEqual(found, ['fl_may_write.sql: <= p_token', 'fl_may_write.sql: <= p_token']);
  // Not a private helper left aside: the writes of protected_rows and unguarded_rows go through it.
  for (const name of ['fl_fenced_write', 'fl_broken_write', 'fl_delayed_packet_write']) {
    const f = (await readFunctionFiles()).find((x) => x.name === name);
    assert.match(f?.sql ?? '', /AND fl_may_write\(/, `${name} calls fl_may_write in its UPDATE`);
  }
});
