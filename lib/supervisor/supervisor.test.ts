import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { closePool } from '../../db/pool';
import type { LabEvent } from '../model/core/events';
import { isAlive } from '../os/processes';
import { trainerKey, trainerProofOf } from '../server/access';
import * as commands from '../server/lab-commands';
import { beatAfter } from '../testing/remote-beat';
import { waitFor } from '../testing/wait';
import { waitForEvent as waitForLabEvent } from '../testing/wait-for-event';
import { getSupervisor } from './supervisor';

// The trainer drives the shared labs (lab-access.test.ts covers everyone else).
const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const startWorkerAction = (input: unknown) => commands.startWorker(input, TRAINER);
const pauseWorkerAction = (input: unknown) => commands.pauseWorker(input, TRAINER);
const resumeWorkerAction = (input: unknown) => commands.resumeWorker(input, TRAINER);
const crashWorkerAction = (input: unknown) => commands.crashWorker(input, TRAINER);
const restartWorkerAction = (input: unknown) => commands.restartWorker(input, TRAINER);
const resetLabAction = (input: unknown) => commands.resetLab(input, TRAINER);
const listWorkersAction = (input: unknown) => commands.listWorkers(input, TRAINER);

/*
 * The supervisor behind the server actions, with real worker processes: every control does what
 * it says (as the events the workers wrote show), every bad input gets a clear error and changes
 * nothing, and no worker outlives a SIGKILLed server.
 */

const LAB = 'fenced';
const FAST = { leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 200 };

before(async () => {
  await resetLabAction({ lab: LAB });
});
after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

const waitForEvent = (match: (e: LabEvent) => boolean, what: string, timeoutMs?: number) =>
  waitForLabEvent(LAB, match, what, { timeoutMs });

async function workers() {
  const result = await listWorkersAction({ lab: LAB });
  assert.ok(result.ok);
  return result.data;
}

describe('controls, through the server actions', () => {
  test('start: a real process acquires the lease and writes through the fenced write', async () => {
    const started = await startWorkerAction({ lab: LAB, settings: { name: 'A', ...FAST } });
    assert.ok(started.ok, JSON.stringify(started));
    assert.equal(started.data.id, 'w1');
    assert.equal('pid' in started.data, false, 'no process id reaches a client');
    await waitForEvent((e) => e.actor === 'A' && e.kind === 'write_accepted', "A's first write");
  });

  test('pause for N seconds freezes the process for that long, then it resumes by itself', async () => {
    const paused = await pauseWorkerAction({ lab: LAB, worker: 'A', plan: { mode: 'for', seconds: 1.5 } });
    assert.ok(paused.ok, JSON.stringify(paused));
    assert.equal(paused.data.phase, 'paused');
    const started = await waitForEvent((e) => e.actor === 'A' && e.kind === 'pause_started', 'pause_started');
    const ended = await waitForEvent((e) => e.actor === 'A' && e.kind === 'pause_ended', 'pause_ended', 5_000);
    const frozenMs = Number(ended.detail?.frozenMs);
    assert.ok(frozenMs >= 1_400 && frozenMs < 2_500, `frozen for ${frozenMs} ms`);
    // Nothing at all happened in A's name while it was frozen: no renewal, no write.
    const during = (await listEvents({ lab: LAB })).filter(
      (e) => e.actor === 'A' && e.id > started.id && e.id < ended.id,
    );
    assert.deepEqual(
      during.map((e) => e.kind).filter((k) => k !== 'lease_expired'),
      [],
    );
  });

  test('pause until resumed stays frozen until resume', async () => {
    // The timed pause before has ended by A's event; its phase reaches the supervisor with A's next
    // beat (it records pause_ended, then runs again): a pause asked before that is "already paused".
    await waitFor(async () => (await workers()).find((w) => w.name === 'A')?.phase !== 'paused', 'A running again', {
      timeoutMs: 5_000,
    });
    const mark = (await listEvents({ lab: LAB })).at(-1)?.id ?? 0;
    const paused = await pauseWorkerAction({ lab: LAB, worker: 'w1', plan: { mode: 'until-resumed' } });
    assert.ok(paused.ok, JSON.stringify(paused));
    const started = await waitForEvent((e) => e.actor === 'A' && e.kind === 'pause_started' && e.id > mark, 'pause');
    // 1.5 s of A's run past the freeze, by its own heartbeat (its listener beats while the main thread is
    // frozen): a running A would have renewed every 300 ms and written every 200 ms by then.
    await beatAfter(LAB, 'A', started.at.getTime(), 1_500);
    const early = (await listEvents({ lab: LAB })).filter(
      (e) => e.actor === 'A' && e.id > started.id && e.kind !== 'lease_expired',
    );
    assert.deepEqual(early, [], 'nothing from A while frozen');
    const resumed = await resumeWorkerAction({ lab: LAB, worker: 'A' });
    assert.ok(resumed.ok, JSON.stringify(resumed));
    const ended = await waitForEvent(
      (e) => e.actor === 'A' && e.kind === 'pause_ended' && e.id > started.id,
      'pause_ended',
    );
    assert.ok(Number(ended.detail?.frozenMs) >= 1_500);
  });

  test('crash kills the process (SIGKILL) and restart brings it back, acquiring anew', async () => {
    const crashed = await crashWorkerAction({ lab: LAB, worker: 'A' });
    assert.ok(crashed.ok);
    assert.equal(crashed.data.alive, false);
    await waitForEvent((e) => e.kind === 'worker_crashed' && e.actor === 'A', 'worker_crashed');
    const restarted = await restartWorkerAction({ lab: LAB, worker: 'A' });
    assert.ok(restarted.ok);
    const mark = await waitForEvent((e) => e.kind === 'worker_restarted' && e.actor === 'A', 'worker_restarted');
    await waitForEvent((e) => e.actor === 'A' && e.kind === 'lease_acquired' && e.id > mark.id, 'a new grant', 10_000);
  });

  test('reset stops the workers and clears the history; tokens never go back', async () => {
    const before = (await listEvents({ lab: LAB })).filter((e) => e.token !== undefined).map((e) => e.token as number);
    const reset = await resetLabAction({ lab: LAB });
    assert.ok(reset.ok);
    assert.deepEqual(await workers(), []);
    assert.deepEqual(await listEvents({ lab: LAB }), []);
    await startWorkerAction({ lab: LAB, settings: { name: 'C', ...FAST } });
    const grant = await waitForEvent((e) => e.actor === 'C' && e.kind === 'lease_acquired', "C's grant");
    assert.ok((grant.token as number) > Math.max(...before));
  });
});

describe('bad input: a clear error, and nothing changes', () => {
  const cases: Array<[string, () => Promise<{ ok: boolean; error?: { message: string } }>, RegExp]> = [
    [
      'an unknown worker',
      () => pauseWorkerAction({ lab: LAB, worker: 'nobody', plan: { mode: 'until-resumed' } }),
      /no worker "nobody"/,
    ],
    [
      'a negative pause',
      () => pauseWorkerAction({ lab: LAB, worker: 'C', plan: { mode: 'for', seconds: -1 } }),
      /more than 0 seconds/,
    ],
    [
      'a huge pause',
      () => pauseWorkerAction({ lab: LAB, worker: 'C', plan: { mode: 'for', seconds: 3600 } }),
      /at most 60 seconds/,
    ],
    [
      'a pause without a length',
      () => pauseWorkerAction({ lab: LAB, worker: 'C', plan: { mode: 'for' } }),
      /pause length must be a number/,
    ],
    [
      'an unknown pause mode',
      () => pauseWorkerAction({ lab: LAB, worker: 'C', plan: { mode: 'forever' } }),
      /pause mode must be/,
    ],
    [
      'a TTL out of bounds',
      () => startWorkerAction({ lab: LAB, settings: { name: 'D', leaseTtlMs: 10 } }),
      /lease TTL must be at least 500 ms/,
    ],
    [
      'a renew interval longer than the TTL',
      () => startWorkerAction({ lab: LAB, settings: { name: 'D', leaseTtlMs: 1_000, renewEveryMs: 2_000 } }),
      /renew interval must be shorter/,
    ],
    ['an empty name', () => startWorkerAction({ lab: LAB, settings: { name: '   ' } }), /name must not be empty/],
    ['a duplicate name', () => startWorkerAction({ lab: LAB, settings: { name: 'c' } }), /already a worker named "c"/],
    [
      'a wrong type',
      () => startWorkerAction({ lab: LAB, settings: { name: 'D', leaseTtlMs: '3000' } }),
      /must be a number of milliseconds/,
    ],
    ['an unknown lab', () => startWorkerAction({ lab: 'prod', settings: { name: 'D' } }), /lab must be one of/],
    [
      'a process id instead of a worker',
      () => crashWorkerAction({ lab: LAB, worker: String(process.pid) }),
      /no worker/,
    ],
    [
      'an extra field',
      () => crashWorkerAction({ lab: LAB, worker: 'C', pid: 1 }),
      /^the input has a field it does not take: pid$/,
    ],
    ['not an object at all', () => resumeWorkerAction('C; DROP TABLE leases'), /^the input must be a set of fields$/],
    ['resuming a worker that is not paused', () => resumeWorkerAction({ lab: LAB, worker: 'C' }), /is not paused/],
  ];
  for (const [label, act, message] of cases) {
    test(label, async () => {
      const before = await workers();
      const result = await act();
      assert.equal(result.ok, false);
      assert.match(result.error?.message ?? '', message);
      const now = await workers();
      assert.deepEqual(
        now.map((w) => [w.id, w.name, w.alive]),
        before.map((w) => [w.id, w.name, w.alive]),
      );
    });
  }

  test('too many workers: the ninth is refused', async () => {
    await resetLabAction({ lab: LAB });
    for (let i = 1; i <= 8; i++) {
      const started = await startWorkerAction({ lab: LAB, settings: { name: `n${i}`, ...FAST } });
      assert.ok(started.ok);
    }
    const ninth = await startWorkerAction({ lab: LAB, settings: { name: 'n9', ...FAST } });
    assert.equal(ninth.ok, false);
    assert.match(ninth.ok ? '' : ninth.error.message, /at most 8 workers/);
    assert.equal((await workers()).length, 8);
    await resetLabAction({ lab: LAB });
  });
});

describe('commands that race each other', () => {
  test('a double-clicked Restart leaves one process for the worker, and a reset leaves none', async () => {
    await resetLabAction({ lab: LAB });
    await startWorkerAction({ lab: LAB, settings: { name: 'R', ...FAST } });
    await Promise.all([restartWorkerAction({ lab: LAB, worker: 'R' }), restartWorkerAction({ lab: LAB, worker: 'R' })]);
    assert.equal(getSupervisor().processIds().length, 1, 'one process for one worker');
    await Promise.all([
      resetLabAction({ lab: LAB }),
      startWorkerAction({ lab: LAB, settings: { name: 'S', ...FAST } }),
    ]);
    const tracked = getSupervisor().processIds().length;
    assert.equal(tracked, (await workers()).filter((w) => w.alive).length, 'every process is tracked');
    await resetLabAction({ lab: LAB });
    assert.deepEqual(getSupervisor().processIds(), []);
  });

  test('a double Resume does not leave a wake-up behind: the next pause freezes for its full length', async () => {
    await startWorkerAction({ lab: LAB, settings: { name: 'D', ...FAST } });
    await waitForEvent((e) => e.actor === 'D' && e.kind === 'lease_acquired', "D's grant");
    await pauseWorkerAction({ lab: LAB, worker: 'D', plan: { mode: 'until-resumed' } });
    const [first, second] = await Promise.all([
      resumeWorkerAction({ lab: LAB, worker: 'D' }),
      resumeWorkerAction({ lab: LAB, worker: 'D' }),
    ]);
    assert.ok(first.ok);
    assert.equal(second.ok, false, 'the second finds nothing to resume');
    await waitForEvent((e) => e.actor === 'D' && e.kind === 'pause_ended', 'the first pause to end');
    const mark = (await listEvents({ lab: LAB })).at(-1)?.id ?? 0;
    await pauseWorkerAction({ lab: LAB, worker: 'D', plan: { mode: 'for', seconds: 1 } });
    const ended = await waitForEvent(
      (e) => e.actor === 'D' && e.kind === 'pause_ended' && e.id > mark,
      'the timed pause',
    );
    assert.ok(Number(ended.detail?.frozenMs) >= 900, `frozen ${ended.detail?.frozenMs} ms`);
  });

  test('a pause armed for the critical window and a pause now each keep their own length', async () => {
    const mark = (await listEvents({ lab: LAB })).at(-1)?.id ?? 0;
    await pauseWorkerAction({ lab: LAB, worker: 'D', plan: { mode: 'critical-window', seconds: 0.5 } });
    await pauseWorkerAction({ lab: LAB, worker: 'D', plan: { mode: 'for', seconds: 0.3 } }).catch(() => undefined);
    // Both freezes end by themselves: two pause_ended within a few seconds, none stuck "until resumed".
    const deadline = Date.now() + 8_000;
    let ended: LabEvent[] = [];
    while (Date.now() < deadline) {
      ended = (await listEvents({ lab: LAB })).filter(
        (e) => e.actor === 'D' && e.kind === 'pause_ended' && e.id > mark,
      );
      if (ended.length >= 2) break;
      await sleep(50);
    }
    assert.ok(ended.length >= 1, 'the freezes ended by themselves');
    assert.ok(
      ended.every((e) => Number(e.detail?.frozenMs) < 2_000),
      JSON.stringify(ended.map((e) => e.detail?.frozenMs)),
    );
    await resetLabAction({ lab: LAB });
  });
});

test('SIGKILL of the server: no worker remains after 5 s, a frozen one included, and each lane ends in its own words', async () => {
  const host = spawn(
    process.execPath,
    ['--conditions=react-server', '--import', 'tsx', 'lib/testing/supervisor-host.ts', 'bypass'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    host.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    host.once('exit', (code) => reject(new Error(`host exited early (${code})`)));
  });
  const { pids, pausedPhase } = JSON.parse(line) as { pids: number[]; pausedPhase: string };
  assert.equal(pids.length, 2);
  assert.equal(pausedPhase, 'paused');
  assert.ok(pids.every(isAlive));

  host.kill('SIGKILL');
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && pids.some(isAlive)) await sleep(50);
  assert.deepEqual(pids.filter(isAlive), [], 'every worker is gone');
  // Recorded by each worker's listener thread, the frozen A's too: no lane runs on until a server starts.
  // A statement sent before the process ended still commits: its commit may land a moment later.
  const stopped = async () => (await listEvents({ lab: 'bypass' })).filter((e) => e.kind === 'worker_stopped');
  const ends = await waitFor(async () => ((await stopped()).length === 2 ? stopped() : undefined), 'both ends', {
    timeoutMs: 10_000,
  }).catch(stopped);
  assert.deepEqual(ends.map((e) => e.actor).sort(), ['A', 'B']);
  assert.ok(ends.every((e) => /the app server that ran it stopped/.test(String(e.detail?.reason))));
});
