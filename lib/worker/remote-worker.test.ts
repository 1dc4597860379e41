import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listEvents } from '../../db/events';
import { labJoinKey } from '../../db/labs';
import { closePool } from '../../db/pool';
import type { LabEvent } from '../model/core/events';
import { isAlive } from '../os/processes';
import { trainerKey, trainerProofOf } from '../server/access';
import * as commands from '../server/lab-commands';
import * as doors from '../server/lab-door-commands';
import { getSupervisor } from '../supervisor/supervisor';
import { labTurns } from '../testing/lab-turns';
import { remoteBeatPastWindow } from '../testing/remote-beat';
import { type RemoteWorkerRun, startRemoteWorker } from '../testing/remote-worker-process';
import { waitFor } from '../testing/wait';
import { waitForEvent as waitForLabEvent } from '../testing/wait-for-event';
import { testWorkerLineUrl } from '../testing/worker-line';

/*
 * `npm run worker` as a real process started from a shell, driven by the trainer through the same
 * server actions the UI calls: the commands reach it through the database only.
 */

const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const LAB = 'fenced';
const FAST_FLAGS = ['--lease-ttl-ms', '1000', '--renew-every-ms', '300', '--write-every-ms', '200'];
const FAST = { leaseTtlMs: 1_000, renewEveryMs: 300, writeEveryMs: 200 };
const STEP_MS = 20_000;

const runs: RemoteWorkerRun[] = [];
const worker = (args: string[]) => {
  const run = startRemoteWorker(['--db', lineUrl, ...args]);
  runs.push(run);
  return run;
};

let lineUrl: string;
before(async () => {
  lineUrl = await testWorkerLineUrl();
  assert.ok((await commands.resetLab({ lab: LAB }, TRAINER)).ok);
  // The room joins a shared lab only while its trainer opens it to remote workers.
  assert.ok((await doors.setRemoteWorkers({ lab: LAB, open: true }, TRAINER)).ok);
});
after(async () => {
  await Promise.all(runs.map((run) => run.stop()));
  await doors.setRemoteWorkers({ lab: LAB, open: false }, TRAINER);
  await getSupervisor().shutdown();
  await closePool();
});

/** The first event of the lab that matches, once recorded (lib/testing/wait-for-event.ts). */
const waitForEvent = (match: (e: LabEvent) => boolean, what: string, timeoutMs = STEP_MS) =>
  waitForLabEvent(LAB, match, what, { timeoutMs, everyMs: 50 });

async function lastId(): Promise<number> {
  return (await listEvents({ lab: LAB })).at(-1)?.id ?? 0;
}

async function listed(name: string) {
  const result = await commands.listWorkers({ lab: LAB }, TRAINER);
  assert.ok(result.ok);
  return result.data.find((w) => w.name === name);
}

test('--help prints the usage and exits 0', async () => {
  const run = worker(['--help']);
  assert.equal(await run.exited, 0);
  assert.match(run.output(), /^usage: npm run worker -- --lab <id> --name <name>/m);
  assert.doesNotMatch(run.output(), /unknown option/);
});

/*
 * Each refusal starts a worker process (about a second each), so they run three at a time; the three
 * that need the fenced lab as the room left it (its door to remote workers open, and one test closes it
 * for a while) take turns at it (lib/testing/lab-turns.ts).
 */
const inTurn = labTurns();

describe('bad usage: a clear message and exit code 2', { concurrency: 3 }, () => {
  test('an unknown lab', async () => {
    const run = worker(['--lab', 'p-zzzzzzzzzz', '--name', 'Far']);
    assert.equal(await run.exited, 2);
    assert.match(run.output(), /no lab "p-zzzzzzzzzz" in this database/);
  });

  test("someone else's private lab: its id alone is no way in, its join key is", async () => {
    const owner = { ownerSecret: `remote-worker-test-${Date.now()}` };
    const opened = await commands.openPrivateLab({ kind: 'fenced' }, { ...owner, address: '192.0.2.77' });
    assert.ok(opened.ok, JSON.stringify(opened));
    const lab = opened.data.id;
    try {
      const stranger = worker(['--lab', lab, '--name', 'Far']);
      assert.equal(await stranger.exited, 2);
      assert.match(stranger.output(), new RegExp(`no lab "${lab}" in this database`));
      const wrongKey = worker(['--lab', lab, '--join-key', '0'.repeat(64), '--name', 'Far']);
      assert.equal(await wrongKey.exited, 2);

      const key = await labJoinKey(lab);
      assert.ok(key);
      // The owner's own line, as its page issues it: a running worker holds two of a line's 4
      // connections and opens a third to say it stopped, and the other refusals run beside this test
      // on the file's shared line.
      const ownLine = await testWorkerLineUrl({ who: `remote-worker-owner-${process.pid}`, lab });
      const own = startRemoteWorker(['--db', ownLine, '--lab', lab, '--join-key', key, '--name', 'Own', ...FAST_FLAGS]);
      runs.push(own);
      try {
        await waitFor(
          async () => (await listEvents({ lab })).some((e) => e.actor === 'Own' && e.kind === 'write_accepted'),
          "the owner's own worker's accepted write",
          { timeoutMs: STEP_MS, everyMs: 100 },
        );
      } finally {
        await own.stop();
      }
    } finally {
      await commands.closePrivateLab({ lab }, owner);
    }
  });

  test('a shared lab its trainer has not opened to remote workers: refused, saying who opens it', () =>
    inTurn([LAB], async () => {
      assert.ok((await doors.setRemoteWorkers({ lab: LAB, open: false }, TRAINER)).ok);
      try {
        const run = worker(['--lab', LAB, '--name', 'Far']);
        assert.equal(await run.exited, 2);
        assert.match(run.output(), /the shared lab fenced takes no remote workers now: your trainer opens it to them/);
      } finally {
        assert.ok((await doors.setRemoteWorkers({ lab: LAB, open: true }, TRAINER)).ok);
      }
    }));

  test("the walkthrough's names in a shared lab, even opened: refused", () =>
    inTurn([LAB], async () => {
      const run = worker(['--lab', LAB, '--name', 'B']);
      assert.equal(await run.exited, 2);
      assert.match(run.output(), /"B" is a name of the walkthrough's workers/);
      assert.equal(await listed('B'), undefined, 'no lane is left for it');
    }));

  test('a lab id that cannot be one', async () => {
    const run = worker(['--lab', 'nope', '--name', 'Far']);
    assert.equal(await run.exited, 2);
    assert.match(run.output(), /--lab: lab must be one of/);
  });

  test('a clock drift in a lab without a drifting clock: refused once the database says the kind, nothing recorded', () =>
    inTurn([LAB], async () => {
      const before = await lastId();
      const run = worker(['--lab', LAB, '--name', 'Drifter', '--clock-slow-percent', '50']);
      assert.equal(await run.exited, 2);
      assert.match(
        run.output(),
        /--clock-slow-percent: only the drifting-clock labs have a drifting clock \(fenced is fenced\)/,
      );
      assert.deepEqual(
        (await listEvents({ lab: LAB })).filter((e) => e.id > before && e.actor === 'Drifter'),
        [],
      );
      assert.equal(await listed('Drifter'), undefined, 'no lane is left for it');
    }));

  test('a worker started by hand in a delayed-packet lab: refused, since its connection would not pass the packet relay', async () => {
    const lab = 'delayed-packet-unfenced';
    const before = (await listEvents({ lab })).at(-1)?.id ?? 0;
    // Even opened to remote workers by its trainer.
    assert.ok((await doors.setRemoteWorkers({ lab, open: true }, TRAINER)).ok);
    const run = worker(['--lab', lab, '--name', 'Courier']);
    assert.equal(await run.exited, 2);
    assert.ok((await doors.setRemoteWorkers({ lab, open: false }, TRAINER)).ok);
    assert.match(
      run.output(),
      /the delayed-packet-unfenced lab runs only workers its app server starts: their connection to PostgreSQL passes through that server's proxy/,
    );
    assert.deepEqual(
      (await listEvents({ lab })).filter((e) => e.id > before && e.actor === 'Courier'),
      [],
    );
  });

  test('no --name', async () => {
    const run = worker(['--lab', LAB]);
    assert.equal(await run.exited, 2);
    assert.match(run.output(), /--name is required/);
  });

  test('a database that is not there: exit code 3', async () => {
    const run = startRemoteWorker(['--db', 'postgres://nobody:x@127.0.0.1:1/none', '--lab', LAB, '--name', 'Far']);
    runs.push(run);
    assert.equal(await run.exited, 3);
    assert.match(run.output(), /cannot reach the database at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none/);
  });
});

describe('a remote worker, driven from the lab', () => {
  let far: RemoteWorkerRun;
  let farPid: number;

  test('it joins the lab: it writes under its name and is listed as remote', async () => {
    far = worker(['--lab', LAB, '--name', 'Far', ...FAST_FLAGS]);
    farPid = await far.pid();
    await waitForEvent((e) => e.actor === 'Far' && e.kind === 'write_accepted', "Far's first write");
    const started = await waitForEvent((e) => e.actor === 'Far' && e.kind === 'worker_started', 'worker_started');
    assert.equal(started.detail?.remote, true);
    const view = await listed('Far');
    assert.equal(view?.remote, true);
    assert.equal(view?.id, 'Far');
    assert.equal(view?.alive, true);

    const twin = worker(['--lab', LAB, '--name', 'far']);
    assert.equal(await twin.exited, 2, 'a second worker of the same name is refused');
    assert.match(twin.output(), /already running in the lab fenced/);

    // Nor may it take the name of a worker the server runs in the lab.
    assert.ok((await commands.startWorker({ lab: LAB, settings: { name: 'Local', ...FAST } }, TRAINER)).ok);
    const clash = worker(['--lab', LAB, '--name', 'local']);
    assert.equal(await clash.exited, 2, 'the name of a local worker is refused');
    assert.match(clash.output(), /already running in the lab fenced/);
    assert.ok((await commands.crashWorker({ lab: LAB, worker: 'Local' }, TRAINER)).ok);
  });

  test('frozen in its critical window past its lease: a local worker takes over, and its late write is rejected', async () => {
    // Far holds the lease (a write of its own) before Near starts to wait for it.
    const since = await lastId();
    const held = await waitForEvent((e) => e.actor === 'Far' && e.kind === 'write_accepted' && e.id > since, 'a write');
    assert.ok((await commands.startWorker({ lab: LAB, settings: { name: 'Near', ...FAST } }, TRAINER)).ok);
    const mark = await lastId();
    const armed = await commands.pauseWorker({ lab: LAB, worker: 'Far', plan: { mode: 'critical-window' } }, TRAINER);
    assert.ok(armed.ok, JSON.stringify(armed));
    const frozen = await waitForEvent(
      (e) => e.actor === 'Far' && e.kind === 'pause_started' && e.id > mark,
      'Far freezing in its critical window',
    );
    assert.equal((frozen.detail?.trigger as string) ?? '', 'critical-window');

    await waitForEvent((e) => e.kind === 'lease_expired' && e.actor === 'Far' && e.id > frozen.id, "Far's expiry");
    const grant = await waitForEvent(
      (e) => e.actor === 'Near' && e.kind === 'lease_acquired' && e.id > frozen.id,
      "Near's grant",
    );
    await waitForEvent((e) => e.actor === 'Near' && e.kind === 'write_accepted' && e.id > grant.id, "Near's write");
    // Past the heartbeat window, by its own beat: the frozen worker still beats, and shows as paused, not gone.
    await remoteBeatPastWindow(LAB, 'Far', frozen.at.getTime());
    const view = await listed('Far');
    assert.equal(view?.alive, true);
    assert.equal(view?.phase, 'paused');
    const meanwhile = (await listEvents({ lab: LAB })).filter(
      (e) => e.actor === 'Far' && e.id > frozen.id && e.kind !== 'lease_expired',
    );
    assert.deepEqual(
      meanwhile.map((e) => e.kind),
      [],
      'no write, no renewal from Far while it is frozen',
    );

    const restart = await commands.restartWorker({ lab: LAB, worker: 'Far' }, TRAINER);
    assert.equal(restart.ok, false);
    assert.match(restart.ok ? '' : restart.error.message, /a remote worker is restarted on its own machine/);

    assert.ok((await commands.resumeWorker({ lab: LAB, worker: 'Far' }, TRAINER)).ok);
    const rejected = await waitForEvent(
      (e) => e.actor === 'Far' && e.kind === 'write_rejected' && e.id > frozen.id,
      "Far's late write",
    );
    assert.equal(rejected.token, held.token);
    assert.equal(rejected.storedToken, grant.token);
  });

  test('crash: the process is gone, and the crash is recorded', async () => {
    const crashed = await commands.crashWorker({ lab: LAB, worker: 'Far' }, TRAINER);
    assert.ok(crashed.ok, JSON.stringify(crashed));
    assert.equal(crashed.data.alive, false);
    await far.exited;
    assert.equal(isAlive(farPid), false);
    const event = await waitForEvent((e) => e.actor === 'Far' && e.kind === 'worker_crashed', 'worker_crashed');
    assert.deepEqual([event.detail?.signal, event.detail?.remote], ['SIGKILL', true]);
    assert.equal(await listed('Far'), undefined);
  });

  test('a reset stops the lab’s remote workers: its history is cleared under them', async () => {
    const again = worker(['--lab', LAB, '--name', 'Far', ...FAST_FLAGS]);
    await again.pid();
    await waitForEvent((e) => e.actor === 'Far' && e.kind === 'worker_started', 'Far again');
    assert.ok((await commands.resetLab({ lab: LAB }, TRAINER)).ok);
    assert.equal(await again.exited, 0);
    // Told to stop, and not waited for (a person's worker may never answer): it hears the command or
    // the database's refusal of the old run first, and says the lab was reset either way.
    assert.match(again.output(), /stopped(: | \()the lab was reset/);
    assert.equal(await listed('Far'), undefined);
  });
});
