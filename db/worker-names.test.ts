import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { WORKER_NAME_WORDS } from '../lib/model/core/input-bounds';
import { LOOK_ALIKE_NAMES } from '../lib/testing/look-alike-names';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { closeLab, createPrivateLab, labJoinKey } from './labs';
import { closePool, newClient } from './pool';

/*
 * A lane's label is its worker's name. Holding the worker line, a trainee joined a lab beside A as
 * "А" (Cyrillic) and "A " and drew a second lane labelled A; worker_join now tells names apart as they
 * look (fl_name_skeleton), refuses padded names, and takes ASCII letters only (fl_worker_name_refusal).
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

test('padded names are refused', async () => {
  for (const name of ['A ', ' A', 'Ada  Lovelace']) {
    await assert.rejects(join(name), /^error: a worker name has no leading, trailing or double spaces$/, name);
  }
});

/*
 * Issue 33 item 4: letters outside ASCII that look like A or B, and "A" with an invisible Hangul
 * filler after it, joined and drew a second lane labelled A: `[[:alpha:]]` admits every Unicode letter.
 * A name is now ASCII letters and digits, space, _ . -, in the database as in the form (lab-inputs.test.ts).
 */

test('look-alike letters outside ASCII are refused, in the words of the form', async () => {
  for (const [what, name] of LOOK_ALIKE_NAMES) {
    await assert.rejects(
      join(name),
      (error: { code?: string; message?: string }) =>
        error.code === '22023' && error.message === WORKER_NAME_WORDS.letters,
      what,
    );
  }
  assert.equal(await join('Ada_Lovelace-2.0'), null, 'ASCII letters, digits, space, _ . - join');
});

test('a name that looks like a live worker’s is taken: any case', async () => {
  assert.equal(await join('Ada'), null);
  for (const twin of ['ADA', 'ada', 'aDa']) assert.equal(await join(twin), 'name_taken', twin);
  assert.equal(await join('Bob'), null, 'another name joins');
});
