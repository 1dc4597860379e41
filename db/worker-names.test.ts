import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { closeLab, createPrivateLab, labJoinKey } from './labs';
import { closePool, newClient } from './pool';

/*
 * A lane's label is its worker's name. Holding the worker line, a trainee joined a lab beside A as
 * "А" (Cyrillic) and "A " and drew a second lane labelled A; worker_join now tells names apart as they
 * look, and refuses padded names and look-alike letter forms.
 */

let db: pg.Client;
let lab: string;
let key: string;

before(async () => {
  db = newClient(await testWorkerLineUrl());
  await db.connect();
  lab = (
    await createPrivateLab({
      kind: 'no-fencing',
      ownerHash: randomBytes(32).toString('hex'),
      openedFrom: `names-${randomBytes(4).toString('hex')}`,
      initialValue: 'initial',
      opensPerAddress: 12,
      opensWindowMs: 1,
    })
  ).id;
  key = (await labJoinKey(lab)) as string;
});
after(async () => {
  await db.end();
  await closeLab(lab).catch(() => undefined);
  await closePool();
});

async function join(name: string): Promise<string | null> {
  const { rows } = await db.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
    lab,
    name,
    randomBytes(12).toString('hex'),
    JSON.stringify({ name }),
    key,
  ]);
  return rows[0]?.refusal ?? null;
}

test('padded names and look-alike letter forms are refused', async () => {
  for (const name of ['A ', ' A', 'Ada  Lovelace', 'Ａ']) {
    await assert.rejects(join(name), /no leading, trailing or double spaces, and no look-alike letter forms/, name);
  }
});

test('a name that looks like a live worker’s is taken: Cyrillic and Greek look-alikes, any case', async () => {
  assert.equal(await join('Ada'), null);
  for (const twin of ['АDA', 'ada', 'Αda', 'аdа']) assert.equal(await join(twin), 'name_taken', twin);
  assert.equal(await join('Bob'), null, 'another name joins');
});
