import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { readLabDoors } from '../../db/lab-doors';
import { closePool } from '../../db/pool';
import { overrideRoomSettings } from '../config/room-settings';
import { getSupervisor } from '../supervisor/supervisor';
import { endListenSessions } from '../testing/end-listen-sessions';
import { openLabFeed } from '../testing/sse-client';
import { waitFor } from '../testing/wait';
import { trainerKey, trainerProofOf } from './access';
import { stopUnwatchedSharedLabs } from './idle-shared-labs';
import * as commands from './lab-commands';
import * as doors from './lab-door-commands';

/*
 * Issue 23, item 8: a room left running. Shared labs kept their workers running with nobody watching
 * (460,000 events a day, 11 processes up overnight). A shared lab nobody watches or drives for its
 * idle time (FENCING_LAB_SHARED_IDLE_MINUTES, a fraction of a minute here) now stops its workers,
 * each lane ended with the reason, its page says so, and one click starts them again.
 */

const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const QUIET = { leaseTtlMs: 60_000, renewEveryMs: 30_000, writeEveryMs: 60_000 };
const IDLE_MS = 1_500;

before(async () => {
  overrideRoomSettings({ sharedIdleMinutes: IDLE_MS / 60_000 });
  for (const lab of ['no-fencing', 'fenced']) assert.ok((await commands.resetLab({ lab }, TRAINER)).ok);
});
after(async () => {
  for (const lab of ['no-fencing', 'fenced']) await commands.resetLab({ lab }, TRAINER);
  await getSupervisor().shutdown();
  await endListenSessions();
  await closePool();
});

async function alive(lab: string): Promise<string[]> {
  const listed = await commands.listWorkers({ lab }, TRAINER);
  assert.ok(listed.ok);
  return listed.data.filter((w) => w.alive).map((w) => w.name);
}

test("an unwatched shared lab's workers stop after its idle time; a watched one's run on; one click starts them again", async () => {
  for (const [lab, name] of [
    ['no-fencing', 'A'],
    ['fenced', 'W'],
  ]) {
    const started = await commands.startWorker({ lab, settings: { name, ...QUIET } }, TRAINER);
    assert.ok(started.ok, JSON.stringify(started));
  }
  // Someone watches the fenced lab's page; nobody watches no-fencing.
  const viewer = openLabFeed('fenced');
  try {
    await waitFor(() => viewer.received.some((m) => m.event === 'caught-up'), 'caught-up');
    await sleep(IDLE_MS + 500);
    assert.deepEqual(await stopUnwatchedSharedLabs(), ['no-fencing']);
  } finally {
    await viewer.close();
  }
  assert.deepEqual(await alive('no-fencing'), [], 'its worker stopped');
  assert.deepEqual(await alive('fenced'), ['W'], 'the watched lab runs on');
  const ended = (await listEvents({ lab: 'no-fencing' })).filter((e) => e.actor === 'A' && e.kind === 'worker_stopped');
  assert.match(String(ended.at(-1)?.detail?.reason), /^nobody watched or drove the lab for 1 min$/);
  const { idleStop } = await readLabDoors('no-fencing');
  assert.deepEqual(
    idleStop && { minutes: idleStop.idleMinutes, workers: idleStop.workers.map((w) => w.name) },
    { minutes: 1, workers: ['A'] },
    'the page says what stopped',
  );

  const again = await doors.startAgain({ lab: 'no-fencing' }, TRAINER);
  assert.ok(again.ok, JSON.stringify(again));
  assert.deepEqual(await alive('no-fencing'), ['A']);
  assert.equal((await readLabDoors('no-fencing')).idleStop, undefined, 'the notice is gone');
});

test('a worker started in an unwatched shared lab drives it: its workers run on for the idle time from that start', async () => {
  for (const lab of ['no-fencing', 'fenced']) assert.ok((await commands.resetLab({ lab }, TRAINER)).ok);
  // Nobody has watched or driven the lab for longer than its idle time (the story's own time)...
  await sleep(IDLE_MS + 500);
  // ...when someone starts a worker in it without a page (as `npm run scenario` does, or a worker line).
  const started = await commands.startWorker({ lab: 'no-fencing', settings: { name: 'C', ...QUIET } }, TRAINER);
  assert.ok(started.ok, JSON.stringify(started));
  assert.deepEqual(await stopUnwatchedSharedLabs(), [], 'a lab driven just now is not idle');
  assert.deepEqual(await alive('no-fencing'), ['C']);
  // Left to run with nobody watching for its idle time since that start, it stops.
  await sleep(IDLE_MS + 500);
  assert.deepEqual(await stopUnwatchedSharedLabs(), ['no-fencing']);
  assert.deepEqual(await alive('no-fencing'), []);
});
