import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { listEvents } from '../../db/events';
import { closePool } from '../../db/pool';
import { listWorkerStatus } from '../../db/worker-status';
import { sharedLab } from '../model/lab/lab-instance';
import { waitForEvent } from '../testing/wait-for-event';
import { LabSupervisor } from './supervisor';

/*
 * A worker's end is recorded when it happens. A server-started worker killed with kill -9 from a
 * shell recorded nothing: its status said "holding" and its lane ran on until a server restarted.
 * A server stopped cleanly (Ctrl-C) left every lane open until its next start.
 */

const LAB = sharedLab('token-as-text');
const FAST = { leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 200 };

const supervisors: LabSupervisor[] = [];
after(async () => {
  for (const supervisor of supervisors) await supervisor.shutdown();
  await closePool();
});

function newSupervisor(): LabSupervisor {
  const supervisor = new LabSupervisor();
  supervisors.push(supervisor);
  return supervisor;
}

async function startA(supervisor: LabSupervisor) {
  await supervisor.resetLab(LAB);
  await supervisor.startWorker(LAB, { name: 'A', ...FAST });
  return waitForEvent(LAB.id, (e) => e.actor === 'A' && e.kind === 'write_accepted', "A's first write");
}

test('kill -9 of a worker from outside: its crash is on the timeline within 2 s, and it is no longer live', async () => {
  const supervisor = newSupervisor();
  const firstWrite = await startA(supervisor);
  const [pid] = supervisor.processIds();
  assert.ok(pid);
  process.kill(pid, 'SIGKILL');
  const crashed = await waitForEvent(
    LAB.id,
    (e) => e.id > firstWrite.id && e.actor === 'A' && e.kind === 'worker_crashed',
    "A's crash",
    { timeoutMs: 2_000 },
  );
  assert.equal(crashed.detail?.signal, 'SIGKILL');
  assert.match(String(crashed.detail?.reason), /killed by SIGKILL/);
  const status = (await listWorkerStatus(LAB.id)).find((w) => w.name === 'A');
  assert.equal(status?.live, false, 'its status row no longer says it runs');
});

test("a server stopped cleanly ends every worker's lane before it returns", async () => {
  const supervisor = newSupervisor();
  const firstWrite = await startA(supervisor);
  await supervisor.shutdown();
  const ends = (await listEvents({ lab: LAB.id })).filter(
    (e) => e.id > firstWrite.id && e.actor === 'A' && ['worker_stopped', 'worker_crashed'].includes(e.kind),
  );
  assert.equal(ends.length, 1, JSON.stringify(ends));
  assert.equal(ends[0]?.kind, 'worker_stopped');
  assert.match(String(ends[0]?.detail?.reason), /its app server was stopped/);
});

test('a crash the trainer asked for is recorded once, not again as an unseen death', async () => {
  const supervisor = newSupervisor();
  const firstWrite = await startA(supervisor);
  await supervisor.crash(LAB, 'A');
  // The crash returns once the process has exited; the server's handling of that exit (where an unseen
  // death is recorded) may run on after it: its end is what proves a second record would be there.
  await supervisor.exitsHandled();
  const ends = (await listEvents({ lab: LAB.id })).filter(
    (e) => e.id > firstWrite.id && e.actor === 'A' && ['worker_stopped', 'worker_crashed'].includes(e.kind),
  );
  assert.equal(ends.length, 1, JSON.stringify(ends.map((e) => e.detail)));
  // The database keeps one end per lane (events_assign_id): a second record is dropped, so an unseen
  // death recorded first would show as the one end, in the wrong words.
  assert.equal(ends[0]?.kind, 'worker_crashed');
  assert.doesNotMatch(String(ends[0]?.detail?.reason ?? ''), /without a word/, 'the trainer asked for it');
});
