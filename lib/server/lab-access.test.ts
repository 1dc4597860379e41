import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { listEvents } from '../../db/events';
import { readLabRow } from '../../db/lab-rows';
import { findLab } from '../../db/labs';
import { closePool, getPool } from '../../db/pool';
import { overrideRoomSettings } from '../config/room-settings';
import { sharedLab } from '../model/lab/lab-instance';
import { getSupervisor } from '../supervisor/supervisor';
import { waitForEvent } from '../testing/wait-for-event';
import { credentialsFromCookieHeader, newOwnerSecret, trainerKey, trainerProofOf } from './access';
import * as commands from './lab-commands';
import { getPrivateLabs, PrivateLabs } from './private-labs';

/*
 * Who may drive what, through the same commands the server actions call: the shared labs take
 * commands from the trainer only; a private lab is seen and driven by the browser that opened it,
 * and nobody else can tell it exists; private labs write rows of their own.
 */

const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const VIEWER = {};
const ALICE = { ownerSecret: newOwnerSecret() };
const BOB = { ownerSecret: newOwnerSecret() };
const FAST = { leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 200 };

let addresses = 0;
/** Opens a private lab as a browser at an address of its own (the per-address limit is tested in db/labs.test.ts). */
function openPrivateLab(input: unknown, owner: { ownerSecret: string }) {
  addresses += 1;
  return commands.openPrivateLab(input, { ...owner, address: `198.18.${addresses >> 8}.${addresses & 255}` });
}

async function openLab(owner: { ownerSecret: string }, kind = 'fenced') {
  const opened = await openPrivateLab({ kind }, owner);
  assert.ok(opened.ok, JSON.stringify(opened));
  return opened.data.id;
}

function waitForAccepted(lab: string, actor: string) {
  return waitForEvent(
    lab,
    (e) => e.actor === actor && e.kind === 'write_accepted',
    `${actor}'s accepted write in ${lab}`,
  );
}

/** As if nobody had used the lab, through any server, for a day (the database's clock judges it). */
async function leaveIdle(...labs: string[]) {
  await getPool().query("UPDATE labs SET last_used_at = clock_timestamp() - interval '1 day' WHERE id = ANY($1)", [
    labs,
  ]);
}

/** As another app server on the same database records a use it handled: this server never saw it. */
async function usedThroughAnotherServer(lab: string) {
  await getPool().query('UPDATE labs SET last_used_at = clock_timestamp() WHERE id = $1', [lab]);
}

async function closedEvents(lab: string) {
  return (await listEvents({ lab })).filter((e) => e.kind === 'lab_closed');
}

before(async () => {
  await commands.resetLab({ lab: 'fenced' }, TRAINER);
});
after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

test('without the trainer key the shared labs are read-only, and nothing changes', async () => {
  const before = await listEvents({ lab: 'fenced' });
  for (const attempt of [
    () => commands.startWorker({ lab: 'fenced', settings: { name: 'Mallory' } }, VIEWER),
    () => commands.resetLab({ lab: 'fenced' }, VIEWER),
    () => commands.startChaos({ lab: 'fenced', seed: 1, workers: 2, seconds: 5 }, VIEWER),
    () => commands.startWorker({ lab: 'fenced', settings: { name: 'Mallory' } }, { trainerProof: 'guessed' }),
    // An owner of private labs is not the trainer.
    () => commands.resetLab({ lab: 'fenced' }, ALICE),
  ]) {
    const result = await attempt();
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.error.code, 'forbidden');
    assert.match(!result.ok ? result.error.message : '', /trainer/);
  }
  assert.deepEqual(await listEvents({ lab: 'fenced' }), before);
  assert.deepEqual(await getSupervisor().listWorkers(sharedLab('fenced')), []);
  // Watching is open to all.
  assert.ok((await commands.listWorkers({ lab: 'fenced' }, VIEWER)).ok);
});

test('a Cookie header gives the owner secret; a trainer cookie alone proves nothing (only a live session does)', () => {
  // Even a cookie holding the key's HMAC (what the trainer cookie held before sessions) is not a proof.
  const header = `theme=dark; fl_trainer=${encodeURIComponent(TRAINER.trainerProof)}; fl_owner=abc`;
  assert.deepEqual(credentialsFromCookieHeader(header), { ownerSecret: 'abc' });
  assert.deepEqual(credentialsFromCookieHeader(null), {});
  // Another app's malformed cookie on the same host is ignored, not fatal.
  assert.deepEqual(credentialsFromCookieHeader('other_app=100%; fl_owner=abc'), { ownerSecret: 'abc' });
  assert.deepEqual(credentialsFromCookieHeader('fl_owner=%E0%A4%A'), {});
});

test('a private lab is driven by its owner, invisible to others, and writes its own row', async () => {
  const lab = await openLab(ALICE);
  assert.match(lab, /^p-[a-z0-9]{10}$/);
  const record = await findLab(lab);
  assert.ok(record && record.kind === 'fenced' && record.rowId > 1000, 'a protected row of its own');

  // Bob, a viewer and even the trainer cannot tell it exists.
  for (const stranger of [BOB, VIEWER, TRAINER]) {
    const seen = await commands.listWorkers({ lab }, stranger);
    assert.deepEqual(seen, { ok: false, error: { code: 'invalid_input', message: `no lab "${lab}"` } });
    const driven = await commands.startWorker({ lab, settings: { name: 'Intruder' } }, stranger);
    assert.equal(!driven.ok && driven.error.message, `no lab "${lab}"`);
  }

  const sharedBefore = await readLabRow(sharedLab('fenced'));
  const started = await commands.startWorker({ lab, settings: { name: 'A', ...FAST } }, ALICE);
  assert.ok(started.ok, JSON.stringify(started));
  const write = await waitForAccepted(lab, 'A');
  assert.equal(write.rowId, record.rowId);
  const grant = (await listEvents({ lab })).find((e) => e.kind === 'lease_acquired');
  assert.equal(grant?.resource, `lab/${lab}`, 'a lease of its own');
  // The shared lab saw nothing of it.
  assert.deepEqual(await readLabRow(sharedLab('fenced')), sharedBefore);
  assert.deepEqual(
    (await listEvents({ lab: 'fenced' })).map((e) => `${e.actor} ${e.kind} ${JSON.stringify(e.detail).slice(0, 80)}`),
    [],
  );
  assert.deepEqual(await getSupervisor().listWorkers(sharedLab('fenced')), []);
  // And its own listing shows its worker to its owner.
  const listed = await commands.listWorkers({ lab }, ALICE);
  assert.deepEqual(listed.ok && listed.data.map((w) => w.name), ['A']);
});

test('each private token-as-text lab crosses the digit on its own counter', async () => {
  const first = await openLab(BOB, 'token-as-text');
  const second = await openLab(BOB, 'token-as-text');
  for (const lab of [first, second]) {
    assert.ok((await commands.startWorker({ lab, settings: { name: 'A', ...FAST } }, BOB)).ok);
  }
  const tokens = await Promise.all([first, second].map((lab) => waitForAccepted(lab, 'A')));
  assert.deepEqual(
    tokens.map((e) => e.token),
    [9, 9],
    'both start at 9, whatever the other does',
  );
  for (const lab of [first, second]) await commands.closePrivateLab({ lab }, BOB);
});

test('an idle private lab is closed: workers stopped, history kept, commands refused', async () => {
  const lab = await openLab(ALICE, 'no-fencing');
  assert.ok((await commands.startWorker({ lab, settings: { name: 'A', ...FAST } }, ALICE)).ok);
  await waitForAccepted(lab, 'A');
  await leaveIdle(lab);
  const closed = await getPrivateLabs().closeIdle();
  assert.ok(closed.includes(lab), `${lab} closed`);
  const record = await findLab(lab);
  assert.ok(record?.closedAt, 'marked closed');
  const workers = await commands.listWorkers({ lab }, ALICE);
  assert.deepEqual(workers.ok && workers.data.map((w) => w.alive), []);
  const events = await listEvents({ lab });
  assert.deepEqual(
    events.slice(-2).map((e) => [e.actor, e.kind]),
    [
      ['A', 'worker_stopped'],
      ['server', 'lab_closed'],
    ],
    "A's lane ends where it was stopped, then the lab closes",
  );
  assert.ok(
    events.some((e) => e.kind === 'write_accepted'),
    'its history is still there for replay',
  );
  const refused = await commands.startWorker({ lab, settings: { name: 'B' } }, ALICE);
  assert.equal(!refused.ok && refused.error.code, 'lab_closed');
});

test('a lab used through another server is not closed as idle here; one idle everywhere is', async () => {
  const elsewhere = await openLab(ALICE, 'no-fencing');
  const idle = await openLab(ALICE, 'no-fencing');
  // Both were idle a day ago; then a browser used one through another server behind the load
  // balancer. This server saw neither use.
  await leaveIdle(elsewhere, idle);
  await usedThroughAnotherServer(elsewhere);
  const closed = await getPrivateLabs().closeIdle();
  assert.ok(closed.includes(idle), `${idle} closed`);
  assert.ok(!closed.includes(elsewhere), `${elsewhere} kept open`);
  assert.equal((await findLab(elsewhere))?.closedAt, undefined, 'still open in the database');
  assert.ok((await findLab(idle))?.closedAt, 'marked closed');
  assert.ok((await commands.startWorker({ lab: elsewhere, settings: { name: 'A', ...FAST } }, ALICE)).ok);
  await commands.closePrivateLab({ lab: elsewhere }, ALICE);
});

test('a lab watched through this server stays open, and its use is recorded for the others', async () => {
  const lab = await openLab(BOB, 'no-fencing');
  const record = await findLab(lab);
  assert.ok(record);
  const unwatch = getPrivateLabs().watch(record);
  try {
    await leaveIdle(lab);
    assert.ok(!(await getPrivateLabs().closeIdle()).includes(lab), 'a live viewer keeps it open');
    // Another server on the database, with no viewer of it, sees the lab in use too.
    const otherServer = new PrivateLabs();
    assert.ok(!(await otherServer.closeIdle()).includes(lab), "the other server's idle check keeps it open");
    assert.equal((await findLab(lab))?.closedAt, undefined);
  } finally {
    unwatch();
  }
  await commands.closePrivateLab({ lab }, BOB);
});

test('two idle checks at once close an idle lab once, with one lab_closed event', async () => {
  const labs = [await openLab(BOB, 'no-fencing'), await openLab(BOB, 'fenced')];
  assert.ok((await commands.startWorker({ lab: labs[1] as string, settings: { name: 'A', ...FAST } }, BOB)).ok);
  await waitForAccepted(labs[1] as string, 'A');
  await leaveIdle(...labs);
  const checks = await Promise.all([getPrivateLabs().closeIdle(), getPrivateLabs().closeIdle()]);
  for (const lab of labs) {
    assert.equal(checks.flat().filter((id) => id === lab).length, 1, `${lab} closed by one check only`);
    assert.equal((await closedEvents(lab)).length, 1, `one lab_closed event in ${lab}`);
    assert.ok((await findLab(lab))?.closedAt);
  }
  const refused = await commands.startWorker({ lab: labs[1] as string, settings: { name: 'B' } }, BOB);
  assert.equal(!refused.ok && refused.error.code, 'lab_closed');
});

test('a kind that does not exist, or a malformed lab id, is a clear error', async () => {
  const badKind = await openPrivateLab({ kind: 'mine' }, ALICE);
  assert.equal(!badKind.ok && badKind.error.code, 'invalid_input');
  assert.match(!badKind.ok ? badKind.error.message : '', /kind/);
  const badId = await commands.startWorker({ lab: "p-'; drop", settings: { name: 'A' } }, ALICE);
  assert.match(!badId.ok ? badId.error.message : '', /^lab must be one of: fenced, /);
});

test('one browser opens at most 3 private labs at once', async () => {
  const carol = { ownerSecret: newOwnerSecret() };
  const mine: string[] = [];
  for (let i = 0; i < 3; i++) mine.push(await openLab(carol, 'no-fencing'));
  const fourth = await openPrivateLab({ kind: 'fenced' }, carol);
  assert.equal(!fourth.ok && fourth.error.code, 'limit_reached');
  assert.match(!fourth.ok ? fourth.error.message : '', /you already have 3 private labs open/);
  for (const lab of mine) assert.ok((await commands.closePrivateLab({ lab }, carol)).ok);
  assert.ok((await openPrivateLab({ kind: 'fenced' }, carol)).ok, 'closed ones do not count');
});

test('the room opens as many private labs as FENCING_LAB_MAX_PRIVATE_LABS says; closed ones do not count', async (t) => {
  t.after(overrideRoomSettings({ maxPrivateLabs: 30 }));
  const opened: Array<{ id: string; owner: { ownerSecret: string } }> = [];
  let refused: Awaited<ReturnType<typeof commands.openPrivateLab>> | undefined;
  for (let i = 0; i < 40 && !refused; i++) {
    const owner = { ownerSecret: newOwnerSecret() };
    const result = await openPrivateLab({ kind: 'no-fencing' }, owner);
    if (result.ok) opened.push({ id: result.data.id, owner });
    else refused = result;
  }
  assert.ok(refused && !refused.ok, 'the limit was reached');
  assert.equal(refused.error.code, 'limit_reached');
  assert.match(refused.error.message, /the room already has 30 private labs open/);
  // Closing one makes room for one, even while its history is watched (replayed).
  const [first] = opened;
  assert.ok(first);
  assert.ok((await commands.closePrivateLab({ lab: first.id }, first.owner)).ok);
  const closedRecord = await findLab(first.id);
  assert.ok(closedRecord?.closedAt);
  getPrivateLabs().watch(closedRecord)();
  const again = await openPrivateLab({ kind: 'no-fencing' }, BOB);
  assert.ok(again.ok, JSON.stringify(again));
  for (const { id, owner } of opened.slice(1)) await commands.closePrivateLab({ lab: id }, owner);
  await commands.closePrivateLab({ lab: again.data.id }, BOB);
});
