import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closePool } from '../../db/pool';
import { sharedLab } from '../model/lab/lab-instance';
import { isAlive } from '../os/processes';
import { waitFor } from '../testing/wait';
import { waitForEvent } from '../testing/wait-for-event';
import { LabSupervisor } from './supervisor';

/*
 * Warm workers (issue 24 item 2): a start takes a process loaded ahead of need, which then joins and
 * writes like any worker; the pool hands out only processes that have run nothing (one killed while
 * it waited is never handed out); shutdown leaves no warm process behind.
 */

const LAB = sharedLab('fenced');
const FAST = { leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 200 };

const supervisor = new LabSupervisor();
after(async () => {
  await supervisor.shutdown();
  await closePool();
});

test('a second start takes a warm process, which joins and writes; a warm one killed while it waited is never handed out', async () => {
  await supervisor.resetLab(LAB);
  await supervisor.startWorker(LAB, { name: 'A', ...FAST });
  await waitForEvent(LAB.id, (e) => e.actor === 'A' && e.kind === 'write_accepted', "A's first write");
  // The first start filled the pool (2 here: FENCING_LAB_WARM_WORKERS or one per CPU, at most 2).
  const ready = await waitFor(() => {
    const pids = supervisor.local.warmPids();
    return pids.length >= 2 ? pids : undefined;
  }, 'the warm pool to fill');
  const [killed, kept] = ready as [number, number];
  process.kill(killed, 'SIGKILL');
  await waitFor(() => !isAlive(killed) || undefined, 'the killed warm process to go');

  await supervisor.stopLab(LAB);
  await supervisor.resetLab(LAB);
  await supervisor.startWorker(LAB, { name: 'B', ...FAST });
  const wrote = await waitForEvent(LAB.id, (e) => e.actor === 'B' && e.kind === 'write_accepted', "B's first write");
  assert.ok(wrote.token);
  const [pidB] = supervisor.processIds();
  assert.equal(pidB, kept, 'B runs in the warm process that was still alive, not the killed one');
});

test('shutdown ends the warm processes: none is left behind', async () => {
  await waitFor(() => (supervisor.local.warmPids().length > 0 ? true : undefined), 'a warm process');
  const warm = supervisor.local.warmPids();
  await supervisor.shutdown();
  for (const pid of warm) await waitFor(() => !isAlive(pid) || undefined, `warm process ${pid} to end`);
  assert.deepEqual(supervisor.local.warmPids(), []);
});
