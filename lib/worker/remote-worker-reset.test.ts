import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { readProtectedRow } from '../../db/fenced-write';
import { readLease } from '../../db/leases';
import { closePool } from '../../db/pool';
import type { LabEvent } from '../model/core/events';
import { sharedLab } from '../model/lab/lab-instance';
import { trainerKey, trainerProofOf } from '../server/access';
import * as commands from '../server/lab-commands';
import * as doors from '../server/lab-door-commands';
import { getSupervisor } from '../supervisor/supervisor';
import { type RemoteWorkerRun, startRemoteWorker } from '../testing/remote-worker-process';
import { waitForEvent as waitForLabEvent } from '../testing/wait-for-event';
import { testWorkerLineUrl } from '../testing/worker-line';

/*
 * A reset is final for a remote worker that could not be told: frozen by the operating system
 * (SIGSTOP, as a laptop that sleeps) for longer than its heartbeat window, so the reset's "stop"
 * never reaches it. When it wakes (SIGCONT) it carries on with what it believed; the database
 * refuses it, it stops and says why, and nothing of it appears in the lab's new history.
 */

const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const LAB = 'fenced';
const FAST_FLAGS = ['--lease-ttl-ms', '1000', '--renew-every-ms', '300', '--write-every-ms', '200'];
const FAST = { leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 200 };
const STEP_MS = 20_000;

const runs: RemoteWorkerRun[] = [];
let stoppedPid: number | undefined;

let lineUrl: string;
before(async () => {
  lineUrl = await testWorkerLineUrl();
  assert.ok((await commands.resetLab({ lab: LAB }, TRAINER)).ok);
  // The room joins a shared lab only while its trainer opens it to remote workers.
  assert.ok((await doors.setRemoteWorkers({ lab: LAB, open: true }, TRAINER)).ok);
});
after(async () => {
  if (stoppedPid) {
    try {
      process.kill(stoppedPid, 'SIGCONT');
    } catch {
      // already gone
    }
  }
  await Promise.all(runs.map((run) => run.stop()));
  await getSupervisor().shutdown();
  await closePool();
});

/** The first event of the lab that matches, once recorded (lib/testing/wait-for-event.ts). */
const waitForEvent = (match: (e: LabEvent) => boolean, what: string, timeoutMs = STEP_MS) =>
  waitForLabEvent(LAB, match, what, { timeoutMs, everyMs: 50 });

async function listed(name: string) {
  const result = await commands.listWorkers({ lab: LAB }, TRAINER);
  assert.ok(result.ok);
  return result.data.find((w) => w.name === name);
}

test('a remote worker frozen (SIGSTOP) across a reset is refused when it wakes, and nothing of it lands', async () => {
  const sleeper = startRemoteWorker(['--db', lineUrl, '--lab', LAB, '--name', 'Sleeper', ...FAST_FLAGS]);
  runs.push(sleeper);
  const pid = await sleeper.pid();
  const wrote = await waitForEvent((e) => e.actor === 'Sleeper' && e.kind === 'write_accepted', "Sleeper's write");

  process.kill(pid, 'SIGSTOP');
  stoppedPid = pid;
  // Its heartbeat goes stale: the lab no longer counts it, so the reset cannot tell it to stop.
  const deadline = Date.now() + STEP_MS;
  while ((await listed('Sleeper'))?.alive && Date.now() < deadline) await sleep(250);
  assert.equal(await listed('Sleeper'), undefined, 'the frozen worker dropped out of the lab');

  assert.ok((await commands.resetLab({ lab: LAB }, TRAINER)).ok);
  assert.ok((await commands.startWorker({ lab: LAB, settings: { name: 'Awake', ...FAST } }, TRAINER)).ok);
  const newRun = await waitForEvent((e) => e.actor === 'Awake' && e.kind === 'write_accepted', "Awake's write");

  process.kill(pid, 'SIGCONT');
  stoppedPid = undefined;
  const code = await Promise.race([sleeper.exited, sleep(STEP_MS).then(() => 'still running')]);
  assert.equal(code, 0, `it stops by itself, cleanly:\n${sleeper.output()}`);
  assert.match(sleeper.output(), /the lab was reset since this worker joined it/);
  // Awake keeps writing after the sleeper's attempts: the history has moved on past them.
  await waitForEvent((e) => e.actor === 'Awake' && e.kind === 'write_accepted' && e.id > newRun.id + 5, 'more writes');

  const history = await listEvents({ lab: LAB });
  assert.deepEqual(
    history.filter((e) => e.actor === 'Sleeper').map((e) => `${e.kind} ${e.token ?? ''}`),
    [],
    'none of its writes, renewals, pauses or its stop appear in the new history',
  );
  assert.ok(history.every((e) => e.id > wrote.id));
  assert.doesNotMatch((await readProtectedRow(sharedLab('fenced').rowId))?.value ?? '', /^Sleeper/);
  assert.notEqual((await readLease(sharedLab('fenced').resource))?.holder, 'Sleeper');
  assert.equal(await listed('Sleeper'), undefined, 'its heartbeat was refused too: it never looks live again');
});
