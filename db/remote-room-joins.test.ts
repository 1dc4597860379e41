import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, test } from 'node:test';
import type pg from 'pg';
import { sharedLab } from '../lib/model/lab/lab-instance';
import { resetLabData } from '../lib/supervisor/lab-reset';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { setRemoteWorkersOpen } from './lab-doors';
import { closeLab, createPrivateLab, labJoinKey } from './labs';
import { closePool, newClient } from './pool';

/*
 * Issue 23, item 5: a shared lab is the trainer's. Holding the room's worker line, a trainee planted
 * 16 heartbeating workers in no-fencing and the trainer's Start failed, and joined as "B" so that the
 * walkthrough's "start B" failed. Now a shared lab takes remote workers only while its trainer opens
 * it to them (off by default), never under the walkthrough's names, a few at a time and per address.
 */

const LAB = 'no-fencing';
let room: pg.Client;

before(async () => {
  room = newClient(await testWorkerLineUrl());
  await room.connect();
});
beforeEach(async () => {
  await setRemoteWorkersOpen(LAB, false);
  await resetLabData(sharedLab(LAB));
});
after(async () => {
  await setRemoteWorkersOpen(LAB, false);
  await resetLabData(sharedLab(LAB));
  await room.end();
  await closePool();
});

async function join(name: string, lab = LAB, key: string | null = null): Promise<string | null> {
  const { rows } = await room.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
    lab,
    name,
    randomBytes(12).toString('hex'),
    JSON.stringify({ name }),
    key,
  ]);
  return rows[0]?.refusal ?? null;
}

test('a shared lab refuses remote workers until its trainer opens it, and again once closed', async () => {
  assert.equal(await join('Far'), 'not_open', 'closed by default');
  assert.equal(await setRemoteWorkersOpen(LAB, true), true);
  assert.equal(await join('Far'), null, 'opened: joins');
  await setRemoteWorkersOpen(LAB, false);
  assert.equal(await join('Near'), 'not_open', 'closed again');
});

test("the walkthrough's names A and B (and their look-alikes) are refused remotely in a shared lab, not in one's own", async () => {
  await setRemoteWorkersOpen(LAB, true);
  for (const name of ['A', 'B', 'a', 'b', 'А', 'В']) assert.equal(await join(name), 'reserved_name', name);
  assert.equal(await join('Ada'), null, 'another name joins');
  const own = await createPrivateLab({
    kind: 'no-fencing',
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `room-joins-${randomBytes(4).toString('hex')}`,
    initialValue: 'initial',
    opensPerAddress: 12,
    opensWindowMs: 1,
  });
  try {
    assert.equal(await join('A', own.id, (await labJoinKey(own.id)) ?? null), null, 'A in a private lab with its key');
  } finally {
    await closeLab(own.id);
  }
});

test('one client address runs at most 4 live remote workers in the shared labs; a stopped one frees its place', async () => {
  await setRemoteWorkersOpen(LAB, true);
  for (let n = 0; n < 4; n++) assert.equal(await join(`Junk${n}`), null, `Junk${n}`);
  assert.equal(await join('Junk4'), 'address_full');
  // A reset ends their run: they are no longer live, and take no place.
  await resetLabData(sharedLab(LAB));
  assert.equal(await join('Junk4'), null, 'after a reset');
});
