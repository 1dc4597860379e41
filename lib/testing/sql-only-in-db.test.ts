import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { allSourceFiles } from './source-files';

/*
 * No raw SQL outside db/: every statement the app, the workers and the scenarios send is a
 * function in db/, named for what it does. The harness (tests and lib/testing) may poke the database
 * to set up or break a case (end a feed's connection, fill a history, probe a connection's role).
 */

/** A pg query call: `.query(`, `.query<Row>(`, with the generic over several lines. */
const QUERY_CALL = /\.query\s*(?:<[^()]*?>)?\s*\(/g;

/*
 * Known leftovers, each with why (none now). An entry here that no longer sends SQL fails the test,
 * so the list only shrinks.
 */
const LEFTOVERS: { file: string; why: string }[] = [];

function isHarness(file: string): boolean {
  return file.endsWith('.test.ts') || file.startsWith('lib/testing/');
}

function sqlCalls(source: string): number {
  return [...source.matchAll(QUERY_CALL)].length;
}

test('only db/ sends SQL', async () => {
  const senders: string[] = [];
  for (const file of await allSourceFiles()) {
    if (file.startsWith('db/') || isHarness(file)) continue;
    if (sqlCalls(await readFile(file, 'utf8')) > 0) senders.push(file);
  }
  const leftovers = new Set(LEFTOVERS.map((l) => l.file));
  assert.deepEqual(
    senders.filter((file) => !leftovers.has(file)),
    [],
    'these files send SQL themselves: move each statement into a function in db/',
  );
  assert.deepEqual(
    [...leftovers].filter((file) => !senders.includes(file)),
    [],
    'leftovers that no longer send SQL: remove them from LEFTOVERS',
  );
});

test('the SQL check can fail: it sees a query call, typed or not, over several lines', () => {
  assert.equal(sqlCalls("await getPool().query('SELECT 1')"), 1);
  assert.equal(sqlCalls('const { rows } = await db.query<{\n  id: string;\n}>(\n  `SELECT id FROM events`,\n);'), 1);
  assert.equal(sqlCalls('await fetch(url); query.trim(); useQuery()'), 0);
});
