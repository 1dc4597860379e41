import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { labJoinKey } from '../../db/labs';
import { closePool, getPool } from '../../db/pool';
import { enqueueWorkerCommand } from '../../db/remote-workers';
import { openPrivateLabOnLine } from '../testing/private-lab-line';
import { type RemoteWorkerRun, startRemoteWorker } from '../testing/remote-worker-process';
import { waitFor } from '../testing/wait';
import { testWorkerLineUrl } from '../testing/worker-line';

/*
 * Any program as a lane (issue 36, item 3): `npm run worker -- … --exec "<command>"` runs the
 * reference client in bash (clients/psql/worker.sh) as the lane: it writes with the token it was
 * granted; the lab's pause freezes its whole process group for real (no write lands meanwhile), the
 * lab's stop ends it, and its end is recorded. A program that cannot run is refused with its words.
 * A pause stops every process of the program's group and every thread of each (read in /proc), a
 * resume none; a program's own exit, by its code or by a signal, is its lane's stop reason in words.
 */

let at: Awaited<ReturnType<typeof openPrivateLabOnLine>>;
const runs: RemoteWorkerRun[] = [];
before(async () => {
  at = await openPrivateLabOnLine('exec-lane');
});
const scratch = mkdtempSync(path.join(tmpdir(), 'exec-lane-'));
after(async () => {
  for (const run of runs) await run.stop();
  await at.close();
  await closePool();
  rmSync(scratch, { recursive: true, force: true });
});

type Row = { id: string; kind: string; token: string | null; detail: Record<string, unknown> };
const eventsOf = async (actor: string) =>
  (
    await getPool().query<Row>('SELECT id, kind, token, detail FROM events WHERE lab = $1 AND actor = $2 ORDER BY id', [
      at.lab,
      actor,
    ])
  ).rows;

/** The pids of the processes whose command line holds the marker ('' when none). */
const pgrep = (marker: string) => {
  try {
    return execFileSync('pgrep', ['-f', marker]).toString().trim();
  } catch {
    return ''; // pgrep exits 1 when nothing matches
  }
};

async function execLane(name: string, command: string): Promise<RemoteWorkerRun> {
  const run = startRemoteWorker([
    '--db',
    await testWorkerLineUrl({ who: 'exec-lane' }),
    '--lab',
    at.lab,
    '--join-key',
    (await labJoinKey(at.lab)) ?? '',
    '--name',
    name,
    '--exec',
    command,
  ]);
  runs.push(run);
  return run;
}

test('the bash client as a lane: it writes, a pause freezes it for real, a stop ends it, all recorded', {
  timeout: 120_000,
}, async () => {
  const run = await execLane('Exec', 'bash clients/psql/worker.sh');
  const writes = async () => (await eventsOf('Exec')).filter((e) => e.kind === 'write_accepted').length;
  await waitFor(async () => (await writes()) >= 2, `two writes of the lane (it said: ${run.output()})`, {
    timeoutMs: 60_000,
  });
  await enqueueWorkerCommand({ lab: at.lab, worker: 'Exec', command: 'pause-now', seconds: 1.5 });
  const ended = await waitFor(
    async () => (await eventsOf('Exec')).find((e) => e.kind === 'pause_ended'),
    `the pause to end (it said: ${run.output()})`,
    { timeoutMs: 30_000 },
  );
  const events = await eventsOf('Exec');
  const started = events.find((e) => e.kind === 'pause_started') as Row;
  const during = events.filter((e) => Number(e.id) > Number(started.id) && Number(e.id) < Number(ended.id));
  assert.deepEqual(
    during.map((e) => e.kind),
    [],
    'nothing of the frozen program lands',
  );
  assert.ok(Number(ended.detail.frozenMs) >= 1_400, `frozen for ${ended.detail.frozenMs} ms`);
  // It carries on after the pause, then the lab stops it.
  const before = await writes();
  await waitFor(async () => (await writes()) > before, 'a write after the pause', { timeoutMs: 30_000 });
  await enqueueWorkerCommand({ lab: at.lab, worker: 'Exec', command: 'stop' });
  assert.equal(await run.exited, 0, run.output());
  const last = (await eventsOf('Exec')).at(-1);
  assert.equal(last?.kind, 'worker_stopped');
  assert.equal(last?.detail.reason, 'the trainer stopped it');
  assert.equal((await eventsOf('Exec'))[0]?.detail.exec, 'bash worker.sh', 'the program, not all that was typed');
});

test('an armed pause freezes the program in its critical window: after its write_sent, before its write', {
  timeout: 120_000,
}, async () => {
  const run = await execLane('Critical', 'bash clients/psql/worker.sh');
  const writes = async () => (await eventsOf('Critical')).filter((e) => e.kind === 'write_accepted').length;
  await waitFor(async () => (await writes()) >= 2, `two writes of the lane (it said: ${run.output()})`, {
    timeoutMs: 60_000,
  });
  await enqueueWorkerCommand({ lab: at.lab, worker: 'Critical', command: 'arm-critical-pause', seconds: 1.2 });
  const ended = await waitFor(
    async () => (await eventsOf('Critical')).find((e) => e.kind === 'pause_ended'),
    `the pause to end (it said: ${run.output()})`,
    { timeoutMs: 30_000 },
  );
  const events = await eventsOf('Critical');
  const started = events.find((e) => e.kind === 'pause_started') as Row;
  assert.equal(started.detail.trigger, 'critical-window');
  // The write it had decided on was in flight when the freeze struck: its write_sent went in, then
  // the freeze is recorded, with that write's token; nothing else of the frozen program lands.
  const sent = events.findLast((e) => Number(e.id) < Number(started.id)) as Row;
  assert.equal(sent.kind, 'write_sent');
  assert.equal(started.token, sent.token, 'the freeze carries the token of the write it holds back');
  const during = events.filter((e) => Number(e.id) > Number(started.id) && Number(e.id) < Number(ended.id));
  assert.deepEqual(
    during.map((e) => e.kind),
    [],
    'nothing of the frozen program lands',
  );
  assert.ok(Number(ended.detail.frozenMs) >= 1_100, `frozen for ${ended.detail.frozenMs} ms`);
  // Thawed, it sends that very write, with the token it had: its first event after the pause.
  const write = await waitFor(
    async () => (await eventsOf('Critical')).find((e) => Number(e.id) > Number(ended.id)),
    'its write after the pause',
    { timeoutMs: 30_000 },
  );
  assert.match(write.kind, /^write_(accepted|rejected)$/);
  assert.equal(write.detail.value, sent.detail.value);
  assert.equal(write.token, sent.token, "the write carries the write_sent's token");
  await enqueueWorkerCommand({ lab: at.lab, worker: 'Critical', command: 'stop' });
  assert.equal(await run.exited, 0, run.output());
});

test('Ctrl-C on the runner ends the program with it: no process of its group is left, its stop recorded', {
  timeout: 60_000,
}, async () => {
  const marker = `exec-lane-ctrl-c-${process.pid}`;
  const run = await execLane('CtrlC', `bash clients/psql/worker.sh ${marker}`);
  await waitFor(
    async () => (await eventsOf('CtrlC')).some((e) => e.kind === 'write_accepted'),
    `a write of the lane (it said: ${run.output()})`,
    { timeoutMs: 30_000 },
  );
  const running = () => pgrep(marker);
  assert.notEqual(running(), '', 'the program runs');
  // Ctrl-C in the terminal: SIGINT to the foreground group (npm and the runner; the program has a group of its own).
  process.kill(-(run.child.pid as number), 'SIGINT');
  await run.exited;
  await waitFor(async () => running() === '', `no process of the program left (pgrep: ${running()})`, {
    timeoutMs: 10_000,
  });
  const last = (await eventsOf('CtrlC')).at(-1);
  assert.equal(last?.kind, 'worker_stopped');
  assert.equal(last?.detail.reason, 'its runner was stopped with Ctrl-C (SIGINT)');
});

test('a runner killed outright (SIGKILL, nothing handled) leaves no process of its program running', {
  timeout: 60_000,
}, async () => {
  const marker = `exec-lane-kill-9-${process.pid}`;
  const run = await execLane('Killed', `bash clients/psql/worker.sh ${marker}`);
  await waitFor(
    async () => (await eventsOf('Killed')).some((e) => e.kind === 'write_accepted'),
    `a write of the lane (it said: ${run.output()})`,
    { timeoutMs: 30_000 },
  );
  assert.notEqual(pgrep(marker), '', 'the program runs');
  await run.stop(0);
  await waitFor(async () => pgrep(marker) === '', `no process of the program left (pgrep: ${pgrep(marker)})`, {
    timeoutMs: 10_000,
  });
});

test('a program that cannot run is refused, with its first lines of stderr, and its lane ends', {
  timeout: 60_000,
}, async () => {
  const run = await execLane('Missing', 'no-such-program-of-fencing-lab --flag');
  assert.equal(await run.exited, 1, run.output());
  assert.match(run.output(), /could not run: your program exited with code 127 within 1 s, saying:\n.*not found/);
  assert.equal((await eventsOf('Missing')).at(-1)?.kind, 'worker_stopped');
});

/**
 * A program of more than one process and thread: it forks a child, and each of the two starts a
 * thread of its own; all of them run until ended. Its command line carries the marker.
 */
const FORKS_AND_THREADS = `import os, sys, threading, time
def spin():
    while True:
        time.sleep(0.02)
child = os.fork()
threading.Thread(target=spin, daemon=True).start()
print("forked" if child else "child", flush=True)
spin()
`;

/** What /proc says of a process or thread: its state letter (T: stopped), and for a process its group. */
const procStat = (dir: string) => {
  try {
    const stat = readFileSync(path.join(dir, 'stat'), 'utf8');
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so read after its last ')'.
    const pgrp = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2];
    const status = readFileSync(path.join(dir, 'status'), 'utf8');
    return { state: /^State:\s+(\S)/m.exec(status)?.[1] ?? '?', pgrp: Number(pgrp) };
  } catch {
    return undefined; // gone meanwhile
  }
};

/** Every process of the group the marked program runs in, each with the state of each of its threads. */
function groupOf(marker: string): { pid: number; threads: string[] }[] {
  const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  const marked = pids.find((pid) => {
    try {
      // The program itself, whose argument is the marker (not its runner, whose --exec holds it in a longer word).
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker);
    } catch {
      return false;
    }
  });
  const group = marked === undefined ? undefined : procStat(`/proc/${marked}`)?.pgrp;
  if (group === undefined) return [];
  return pids.flatMap((pid) => {
    if (procStat(`/proc/${pid}`)?.pgrp !== group) return [];
    const tasks = (() => {
      try {
        return readdirSync(`/proc/${pid}/task`);
      } catch {
        return [];
      }
    })();
    return [{ pid: Number(pid), threads: tasks.map((task) => procStat(`/proc/${pid}/task/${task}`)?.state ?? '?') }];
  });
}

test("a pause stops the program's whole process group, every thread of every process; a resume none", {
  timeout: 120_000,
}, async () => {
  const marker = `exec-lane-group-${process.pid}`;
  const script = path.join(scratch, 'forks-and-threads.py');
  writeFileSync(script, FORKS_AND_THREADS);
  const run = await execLane('Group', `python3 ${script} ${marker}`);
  // Both processes run, each with its thread (its main thread and one more).
  const members = await waitFor(
    () => {
      const group = groupOf(marker);
      const python = group.filter((p) => p.threads.length >= 2);
      return python.length >= 2 ? group : undefined;
    },
    `the program's two processes, each with two threads (it said: ${run.output()}; /proc: ${JSON.stringify(groupOf(marker))})`,
    { timeoutMs: 30_000 },
  );
  assert.ok(
    members.every((p) => p.threads.every((state) => state !== 'T')),
    `nothing stopped yet: ${JSON.stringify(members)}`,
  );
  await enqueueWorkerCommand({ lab: at.lab, worker: 'Group', command: 'pause-now' });
  await waitFor(
    async () => (await eventsOf('Group')).some((e) => e.kind === 'pause_started'),
    `the pause (it said: ${run.output()})`,
    { timeoutMs: 30_000 },
  );
  const stopped = await waitFor(
    () => {
      const group = groupOf(marker);
      return group.length >= 2 && group.every((p) => p.threads.every((state) => state === 'T')) ? group : undefined;
    },
    `every thread of every process of the group stopped (/proc: ${JSON.stringify(groupOf(marker))})`,
    { timeoutMs: 10_000 },
  );
  assert.ok(stopped.reduce((n, p) => n + p.threads.length, 0) >= 4, JSON.stringify(stopped));
  // Until resumed: still all stopped once the runner has beaten again (it beats every 500 ms).
  const beats = async () =>
    Number(
      (
        await getPool().query<{ at: Date }>(
          'SELECT heartbeat_at AS at FROM remote_workers WHERE lab = $1 AND name = $2',
          [at.lab, 'Group'],
        )
      ).rows[0]?.at.getTime(),
    );
  const beat = await beats();
  await waitFor(async () => (await beats()) > beat, 'a beat of the runner while its program is frozen', {
    timeoutMs: 10_000,
  });
  assert.ok(
    groupOf(marker).every((p) => p.threads.every((state) => state === 'T')),
    `still all stopped: ${JSON.stringify(groupOf(marker))}`,
  );
  await enqueueWorkerCommand({ lab: at.lab, worker: 'Group', command: 'resume' });
  await waitFor(
    async () => (await eventsOf('Group')).some((e) => e.kind === 'pause_ended'),
    `the pause's end (it said: ${run.output()})`,
    { timeoutMs: 30_000 },
  );
  const thawed = await waitFor(
    () => {
      const group = groupOf(marker);
      return group.length >= 2 && group.every((p) => p.threads.every((state) => state !== 'T')) ? group : undefined;
    },
    `no thread of the group stopped (/proc: ${JSON.stringify(groupOf(marker))})`,
    { timeoutMs: 10_000 },
  );
  assert.ok(thawed.reduce((n, p) => n + p.threads.length, 0) >= 4, JSON.stringify(thawed));
  await enqueueWorkerCommand({ lab: at.lab, worker: 'Group', command: 'stop' });
  assert.equal(await run.exited, 0, run.output());
  await waitFor(
    () => groupOf(marker).length === 0,
    `no process of the program left: ${JSON.stringify(groupOf(marker))}`,
    {
      timeoutMs: 10_000,
    },
  );
});

test("the program's own end is its lane's stop reason, in words: its exit code, or the signal that ended it", {
  timeout: 60_000,
}, async () => {
  // Each lives past the runner's start check (1 s), then ends by itself.
  for (const { name, command, reason } of [
    { name: 'ExitCode', command: 'sleep 2; exit 7', reason: 'your program exited with code 7' },
    { name: 'Signalled', command: 'sleep 2; kill -s KILL $$', reason: 'your program was ended by SIGKILL' },
  ]) {
    const run = await execLane(name, command);
    assert.equal(await run.exited, 1, `a program that fails is the lane's failure: ${run.output()}`);
    const last = (await eventsOf(name)).at(-1);
    assert.equal(last?.kind, 'worker_stopped', run.output());
    assert.equal(last?.detail.reason, reason);
    assert.match(run.output(), new RegExp(`^${name} stopped \\(${reason}\\)$`, 'm'));
  }
});
