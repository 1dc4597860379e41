import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { workerBackendPids } from '../../db/cluster-admin';
import { appendEvent, listEvents } from '../../db/events';
import { closeLab, createPrivateLab } from '../../db/labs';
import { closePool, getPool, newClient } from '../../db/pool';
import { sharedLab } from '../model/lab/lab-instance';
import { processRunOf } from '../os/processes';
import { INITIAL_ROW_VALUE, resetLabData } from '../supervisor/lab-reset';
import { thisServerRun } from '../supervisor/worker-process';
import { waitFor } from '../testing/wait';
import { recordOrphanedWorkers } from './orphaned-workers';

/*
 * A server killed with -9 takes its worker processes with it, and nobody records their end: the
 * next server does, for the workers whose server's run is gone, and for no other.
 */

const opened: string[] = [];
after(async () => {
  for (const id of opened) await closeLab(id);
  // The killed server's workers ran in the shared lab: their lanes are not left to the next file.
  await resetLabData(sharedLab('no-fencing'));
  await closePool();
});

/** The run of a process that has ended: a server that was killed. */
async function aDeadServerRun() {
  const child = spawn('sleep', ['30']);
  await new Promise((resolve) => child.once('spawn', resolve));
  const run = processRunOf(child.pid as number);
  assert.ok(run);
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  return run;
}

test('workers whose server died are recorded as stopped; a live server’s, a stopped and a remote worker are not touched', async () => {
  const lab = await createPrivateLab({
    kind: 'no-fencing',
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `orphans-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  opened.push(lab.id);
  const dead = await aDeadServerRun();
  const started = (actor: string, detail: Record<string, unknown>) =>
    appendEvent(getPool(), { lab: lab.id, actor, kind: 'worker_started', resource: lab.resource, detail });
  await started('Orphan', { workerId: 'w1', server: dead });
  await started('Alive', { workerId: 'w2', server: thisServerRun() });
  await started('Done', { workerId: 'w3', server: dead });
  await appendEvent(getPool(), { lab: lab.id, actor: 'Done', kind: 'worker_stopped', detail: { workerId: 'w3' } });
  await started('Far', { workerId: 'Far', remote: true });

  await recordOrphanedWorkers();
  const ends = (await listEvents({ lab: lab.id })).filter((e) => e.kind === 'worker_stopped');
  assert.deepEqual(
    ends.map((e) => e.actor),
    ['Done', 'Orphan'],
  );
  assert.match(String(ends[1]?.detail?.reason), /server that ran it stopped/);

  // Once: the next server start finds nothing more to end.
  await recordOrphanedWorkers();
  assert.equal((await listEvents({ lab: lab.id })).filter((e) => e.kind === 'worker_stopped').length, 2);
});

/*
 * What kill -9 of a Next server leaves: its worker's lifeline ends (the worker records its own end,
 * lib/worker/listener.ts), the launcher then SIGTERMs what is left of the server's process group
 * (the worker's main thread records its end again, lib/worker/main.ts), and the next server's start
 * ends every lane whose server is gone (recordOrphanedWorkers). Three recorders of one end, at
 * about the same moment: the database records the first and drops the others, in the insert's own
 * statement (events_assign_id.sql).
 */
test('kill -9 of the server: the worker’s two stops and the next server’s pass record one worker_stopped', async () => {
  const lab = await createPrivateLab({
    kind: 'no-fencing',
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `orphans-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  opened.push(lab.id);
  const dead = await aDeadServerRun();
  const lifecycle = (kind: 'worker_started' | 'worker_stopped' | 'worker_crashed', reason?: string) =>
    appendEvent(getPool(), {
      lab: lab.id,
      actor: 'A',
      kind,
      resource: lab.resource,
      detail: { workerId: 'w1', server: dead, ...(reason ? { reason } : {}) },
    });
  const ends = async () =>
    (await listEvents({ lab: lab.id })).filter((e) => e.kind === 'worker_stopped' || e.kind === 'worker_crashed');

  await lifecycle('worker_started');
  await Promise.all([
    lifecycle('worker_stopped', 'the app server that ran it stopped, and the process with it'),
    lifecycle('worker_stopped', 'SIGTERM'),
    recordOrphanedWorkers(),
  ]);
  assert.equal((await ends()).length, 1, JSON.stringify((await ends()).map((e) => e.detail?.reason)));

  // A lane that ended is not ended again, by a stop or a crash, until the worker starts again.
  await lifecycle('worker_crashed', 'its process ended (killed by SIGKILL) without a word from the lab');
  await lifecycle('worker_stopped', 'SIGTERM');
  assert.equal((await ends()).length, 1);
  await lifecycle('worker_started');
  await lifecycle('worker_stopped', 'SIGTERM');
  await lifecycle('worker_stopped', 'SIGTERM');
  assert.deepEqual(
    (await ends()).map((e) => e.kind),
    ['worker_stopped', 'worker_stopped'],
  );
});

/** Whether any process is left in the process group `group`. */
function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    // ESRCH: nobody left in the group.
    return false;
  }
}

test('kill -9 of a real server, then the launcher’s SIGCONT and SIGTERM to its group, then the next server’s pass: one worker_stopped for each worker', async (t) => {
  // The worker sessions already open before this server starts are not its workers'.
  const admin = newClient();
  await admin.connect();
  t.after(() => admin.end());
  const openBefore = new Set(await workerBackendPids(admin));
  // The server stands in for Next (lib/testing/supervisor-host.ts: workers A, frozen, and B), in a
  // process group of its own, as the launcher starts Next.
  const host = spawn(
    process.execPath,
    ['--conditions=react-server', '--import', 'tsx', 'lib/testing/supervisor-host.ts', 'no-fencing'],
    { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  const exited = new Promise<void>((resolve) => host.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    host.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    host.once('exit', (code) => reject(new Error(`host exited early (${code})`)));
  });
  assert.equal((JSON.parse(line) as { pids: number[] }).pids.length, 2);
  const group = host.pid as number;

  host.kill('SIGKILL');
  await exited;
  // What the launcher does next (lib/launcher/main.ts, endStragglers), while the next server starts.
  for (const signal of ['SIGCONT', 'SIGTERM'] as const) {
    try {
      process.kill(-group, signal);
    } catch {
      // Nobody left in the group: nothing to signal.
    }
  }
  await recordOrphanedWorkers();
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && groupAlive(group)) await sleep(50);
  assert.equal(groupAlive(group), false, 'every worker is gone');
  // A statement sent before a worker ended may commit a moment later: its session runs what it was
  // sent before it closes, so the pass below waits until none of the workers' sessions is left.
  await waitFor(
    async () => (await workerBackendPids(admin)).every((pid) => openBefore.has(pid)),
    "the ended workers' database sessions to close",
  );
  await recordOrphanedWorkers();

  const ends = (await listEvents({ lab: 'no-fencing' })).filter(
    (e) => e.kind === 'worker_stopped' || e.kind === 'worker_crashed',
  );
  assert.deepEqual(
    ends.map((e) => `${e.actor} ${e.kind}`).sort(),
    ['A worker_stopped', 'B worker_stopped'],
    JSON.stringify(ends.map((e) => [e.actor, e.detail?.reason])),
  );
});
