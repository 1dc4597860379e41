import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { closePool } from '../../db/pool';
import { listWorkerStatus } from '../../db/worker-status';
import { sharedLab } from '../model/lab/lab-instance';
import { waitForEvent } from '../testing/wait-for-event';
import { LabSupervisor } from './supervisor';

/*
 * A worker starved of CPU is still running. On a loaded machine (a clean-clone CI run: four workers, the
 * app and Chromium on 2 CPUs) a worker's heartbeat came late, its row read "not live", and the freeze
 * was refused: "A is not running (restart it first)", and the story ended unfinished. Here the worker
 * is stopped outright (SIGSTOP) until its row reads not live, then the trainer freezes it: the process
 * this server started still runs, so the freeze is queued and done once the worker runs again.
 */

const LAB = sharedLab('token-as-text');
const FAST = { leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 200 };

const supervisor = new LabSupervisor();
after(async () => {
  await supervisor.shutdown();
  await closePool();
});

test('a worker whose heartbeat is late (its process stopped by SIGSTOP) can still be frozen: the freeze waits for it', async () => {
  await supervisor.resetLab(LAB);
  await supervisor.startWorker(LAB, { name: 'A', ...FAST });
  await waitForEvent(LAB.id, (e) => e.actor === 'A' && e.kind === 'write_accepted', "A's first write");
  const [pid] = supervisor.processIds();
  assert.ok(pid);
  process.kill(pid, 'SIGSTOP');
  try {
    const deadline = Date.now() + 15_000;
    while ((await listWorkerStatus(LAB.id)).find((w) => w.name === 'A')?.live !== false) {
      assert.ok(Date.now() < deadline, "A's row never read not live while its process was stopped");
      await sleep(200);
    }
    setTimeout(() => process.kill(pid, 'SIGCONT'), 500);
    const paused = await supervisor.pause(LAB, 'A', { mode: 'until-resumed' });
    assert.equal(paused.phase, 'paused', JSON.stringify(paused));
  } finally {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // it has ended: nothing to wake
    }
  }
});
