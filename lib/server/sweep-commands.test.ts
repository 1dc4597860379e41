import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { closePool } from '../../db/pool';
import type { SweepView } from '../model/sweep-view';
import { getSupervisor } from '../supervisor/supervisor';
import { newOwnerSecret, trainerKey, trainerProofOf } from './access';
import * as commands from './lab-commands';
import { startSweep, sweepPageData, sweepStatus } from './sweep-commands';

/*
 * Who may sweep, and the server's limits, whatever a page sends: a browser with neither the trainer
 * key nor a private lab is refused; a grid past the limits is refused with the reason; one sweep
 * runs at a time on a server; a sweep is seen only by whoever started it.
 */

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const tiny = { grid: { pausesMs: [300], ttlsMs: [2000] }, concurrency: 2 };

async function finished(id: string): Promise<SweepView> {
  for (;;) {
    const status = await sweepStatus({ id }, TRAINER);
    assert.ok(status.ok, JSON.stringify(status));
    if (!status.data.running) return status.data;
    await sleep(200);
  }
}

test('a browser with neither the trainer key nor a private lab may not sweep', async () => {
  const stranger = { ownerSecret: newOwnerSecret() };
  for (const credentials of [{}, stranger, { trainerProof: 'forged' }]) {
    const refused = await startSweep(tiny, credentials);
    assert.equal(refused.ok, false);
    assert.equal(refused.ok ? undefined : refused.error.code, 'forbidden');
    assert.deepEqual(await sweepPageData(credentials), { allowed: false });
  }
});

test('a grid past the limits is refused with the reason, before anything starts', async () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ grid: { pausesMs: [100, 200, 300, 400, 500], ttlsMs: [500, 600, 700, 800, 900] } }, /at most 24 points/],
    [{ grid: { pausesMs: [200], ttlsMs: [1000] }, concurrency: 3 }, /runs at once must be at most 2/],
    [{ grid: { pausesMs: [200], ttlsMs: [1000], sql: 'DROP TABLE labs' } }, /nrecognized/],
    [{ grid: { pausesMs: ['200'], ttlsMs: [1000] } }, /pause lengths must be numbers/],
  ];
  for (const [input, reason] of cases) {
    const refused = await startSweep(input, TRAINER);
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? '' : refused.error.message, reason);
  }
});

test('one sweep at a time on a server, each seen only by whoever started it', async () => {
  const owner = { ownerSecret: newOwnerSecret() };
  const opened = await commands.openPrivateLab({ kind: 'fenced' }, { ...owner, address: '198.18.200.1' });
  assert.ok(opened.ok);
  const started = await startSweep(tiny, TRAINER);
  assert.ok(started.ok, JSON.stringify(started));
  assert.deepEqual([started.data.total, started.data.done, started.data.running], [2, 0, true]);
  const second = await startSweep(tiny, owner);
  assert.equal(second.ok ? undefined : second.error.code, 'limit_reached');
  assert.match(second.ok ? '' : second.error.message, /a sweep is already running on this server/);
  const peek = await sweepStatus({ id: started.data.id }, owner);
  assert.equal(peek.ok ? undefined : peek.error.message, 'no such sweep');

  const done = await finished(started.data.id);
  assert.deepEqual(
    done.results.map((r) => [r.fencing, r.outcome]),
    [
      ['unfenced', 'no-stale-write'],
      ['fenced', 'no-stale-write'],
    ],
  );
  assert.equal((await sweepPageData(TRAINER)).latest?.id, started.data.id);
  // Once it ended, the private lab's owner may sweep too.
  const theirs = await startSweep(tiny, owner);
  assert.ok(theirs.ok, JSON.stringify(theirs));
  for (;;) {
    const status = await sweepStatus({ id: theirs.data.id }, owner);
    assert.ok(status.ok);
    if (!status.data.running) break;
    await sleep(200);
  }
});
