import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { listEvents } from '../../db/events';
import { labJoinKey } from '../../db/labs';
import { closePool } from '../../db/pool';
import { enqueueWorkerCommand } from '../../db/remote-workers';
import { PROJECT_ROOT } from '../launcher/paths';
import { toWire, type WireEvent } from '../model/core/wire';
import { newOwnerSecret } from '../server/access';
import { clientPauseStoryStatus, playClientPauseStory } from '../server/client-pause-story';
import * as commands from '../server/lab-commands';
import { getSupervisor } from '../supervisor/supervisor';
import { pythonWithPsycopg } from '../testing/python';
import { waitFor } from '../testing/wait';
import { testWorkerLineUrl } from '../testing/worker-line';

/*
 * The runner in Python (clients/python/runner.py, issue 36's "nothing but Python on a laptop"): the
 * twenty-line client under it as A of the fenced pause story, told by the lab's own commands
 * (lib/server/client-pause-story.ts): frozen before its next write (SIGSTOP: every process of its
 * group stopped, read in /proc), B takes over and writes, A resumed, its late write refused, the row
 * keeps B's value. An armed pause strikes in the critical window; the program's end is recorded in
 * the Node runner's words; Ctrl-C, or the runner killed outright, leaves no process of the program;
 * a program that cannot run is refused with its words, and a bad command line exits 2.
 */

const PYTHON = pythonWithPsycopg() ?? 'python3';
const MINIMAL = `${PYTHON} clients/python/minimal.py`;
const opened: { lab: string; owner: { ownerSecret: string } }[] = [];
const runs: RunnerRun[] = [];
let addresses = 0;

after(async () => {
  for (const run of runs) await run.stop();
  for (const { lab, owner } of opened) await commands.closePrivateLab({ lab }, owner);
  await getSupervisor().shutdown();
  await closePool();
});

type RunnerRun = { child: ChildProcess; output(): string; exited: Promise<number | null>; stop(): Promise<void> };

/** `python3 clients/python/runner.py <args>` as a person starts it from a shell: in a process group of its own. */
function startRunner(args: string[]): RunnerRun {
  const child = spawn(PYTHON, ['clients/python/runner.py', ...args], {
    cwd: PROJECT_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const run: RunnerRun = {
    child,
    output: () => out,
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
  runs.push(run);
  return run;
}

async function privateLab(kind: 'fenced' | 'no-fencing') {
  const owner = { ownerSecret: newOwnerSecret() };
  addresses += 1;
  const result = await commands.openPrivateLab({ kind }, { ...owner, address: `198.19.9.${addresses}` });
  assert.ok(result.ok, JSON.stringify(result));
  opened.push({ lab: result.data.id, owner });
  return { lab: result.data.id, owner };
}

/** The runner in `lab` as `name`, on a person's worker line, running `program` (words after `--`, or --exec's command). */
async function runnerIn(lab: string, name: string, program: string[]): Promise<RunnerRun> {
  const line = await testWorkerLineUrl({ who: 'python-runner', lab });
  const key = (await labJoinKey(lab)) ?? '';
  return startRunner(['--db', line, '--lab', lab, '--join-key', key, '--name', name, ...program]);
}

const eventsOf = async (lab: string, actor: string) =>
  (await listEvents({ lab })).map(toWire).filter((e) => e.actor === actor);
const after_ = (events: WireEvent[], id: number) => events.filter((e) => e.id > id);

/** Whether the process is the program (not its runner, whose command line holds the program's after its --) with the marker. */
function programHas(pid: string, marker: string): boolean {
  try {
    const args = readFileSync(path.join('/proc', pid, 'cmdline'), 'utf8').split('\0');
    return args.includes(marker) && !args.includes('clients/python/runner.py');
  } catch {
    return false; // gone meanwhile
  }
}

/** The state letter of each process of the group the marked program runs in (T: stopped). */
function groupStates(marker: string): string[] {
  const stat = (pid: string) => {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '?';
      return { state, pgrp: Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[2]) };
    } catch {
      return undefined; // gone meanwhile
    }
  };
  const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  const marked = pids.find((pid) => programHas(pid, marker));
  const pgrp = marked === undefined ? undefined : stat(marked)?.pgrp;
  if (pgrp === undefined) return [];
  return pids.flatMap((pid) => {
    const s = stat(pid);
    return s?.pgrp === pgrp ? [s.state] : [];
  });
}

test("fenced, the twenty-line client under the Python runner as A: frozen (its group SIGSTOPped), B takes over, A resumed and its late write refused, the row keeps B's value", {
  timeout: 150_000,
}, async () => {
  const { lab, owner } = await privateLab('fenced');
  const marker = `python-runner-story-${process.pid}`;
  const a = await runnerIn(lab, 'A', ['--', ...PYTHON.split(' '), 'clients/python/minimal.py', marker]);
  await waitFor(
    async () => (await eventsOf(lab, 'A')).some((e) => e.kind === 'write_accepted'),
    `A's first write (it said: ${a.output()})`,
    { timeoutMs: 60_000 },
  );
  const started = (await eventsOf(lab, 'A')).find((e) => e.kind === 'worker_started');
  assert.equal(started?.detail.exec, 'python3 minimal.py', 'the program, as the class wall names it');
  const played = await playClientPauseStory({ lab }, owner);
  assert.ok(played.ok, JSON.stringify(played));
  await waitFor(
    async () => after_(await eventsOf(lab, 'A'), played.data.mark).some((e) => e.kind === 'pause_started'),
    `A to freeze (it said: ${a.output()})`,
    { timeoutMs: 40_000 },
  );
  // Frozen for real: every process of its group stopped, until the story resumes it.
  const frozen = await waitFor(
    () => {
      const states = groupStates(marker);
      return states.length > 0 && states.every((state) => state === 'T') ? states : undefined;
    },
    `the program's group stopped (/proc: ${JSON.stringify(groupStates(marker))})`,
    { timeoutMs: 10_000 },
  );
  assert.ok(frozen.length >= 1);
  const end = await waitFor(
    async () => {
      const status = await clientPauseStoryStatus({ lab }, owner);
      assert.ok(status.ok, JSON.stringify(status));
      return status.data.state === 'done' || status.data.state === 'failed' ? status.data : undefined;
    },
    'the story to end',
    { timeoutMs: 120_000 },
  );
  assert.equal(end.state, 'done', `${JSON.stringify(end)}\n${a.output()}`);
  assert.match(
    end.state === 'done' ? end.words : '',
    /^A resumed: its late write with token \d+ was refused as stale, and the row keeps B's value\.$/,
  );
  const events = after_((await listEvents({ lab })).map(toWire), played.data.mark);
  const froze = events.find((e) => e.actor === 'A' && e.kind === 'pause_started') as WireEvent;
  assert.equal(froze.detail.trigger, 'critical-window');
  const woke = after_(events, froze.id).find((e) => e.actor === 'A' && e.kind === 'pause_ended') as WireEvent;
  const late = after_(events, woke.id).find((e) => e.actor === 'A' && e.kind.startsWith('write_')) as WireEvent;
  assert.equal(late.kind, 'write_rejected');
  assert.equal(late.token, froze.token, 'the late write carries the token it froze with');
  assert.equal(events.findLast((e) => e.kind === 'write_accepted')?.actor, 'B', "the row keeps B's write");
  assert.ok(
    groupStates(marker).every((state) => state !== 'T'),
    `thawed: ${JSON.stringify(groupStates(marker))}`,
  );
  assert.match(a.output(), /^my write with token \d+ was refused: I lost the lease$/m);
});

test('an armed pause (W: freeze before its next write) strikes in the critical window: after its write_sent, before its write; thawed after its seconds', {
  timeout: 120_000,
}, async () => {
  const { lab } = await privateLab('fenced');
  const run = await runnerIn(lab, 'Armed', ['--exec', MINIMAL]);
  const writes = async () => (await eventsOf(lab, 'Armed')).filter((e) => e.kind === 'write_accepted').length;
  await waitFor(async () => (await writes()) >= 2, `two writes (it said: ${run.output()})`, { timeoutMs: 60_000 });
  await enqueueWorkerCommand({ lab, worker: 'Armed', command: 'arm-critical-pause', seconds: 1.2 });
  const ended = await waitFor(
    async () => (await eventsOf(lab, 'Armed')).find((e) => e.kind === 'pause_ended'),
    `the pause to end (it said: ${run.output()})`,
    { timeoutMs: 30_000 },
  );
  const events = await eventsOf(lab, 'Armed');
  const started = events.find((e) => e.kind === 'pause_started') as WireEvent;
  assert.equal(started.detail.trigger, 'critical-window');
  assert.equal(started.detail.exec, 'python3 minimal.py');
  const sent = events.findLast((e) => e.id < started.id) as WireEvent;
  assert.equal(sent.kind, 'write_sent');
  assert.equal(started.token, sent.token, 'the freeze carries the token of the write it holds back');
  assert.deepEqual(
    events.filter((e) => e.id > started.id && e.id < ended.id).map((e) => e.kind),
    [],
    'nothing of the frozen program lands',
  );
  assert.ok(Number(ended.detail.frozenMs) >= 1_100, `frozen for ${ended.detail.frozenMs} ms`);
  const write = await waitFor(
    async () => after_(await eventsOf(lab, 'Armed'), ended.id)[0],
    'its write after the pause',
    { timeoutMs: 30_000 },
  );
  assert.match(write.kind, /^write_(accepted|rejected)$/);
  assert.equal(write.detail.value, sent.detail.value, 'the very write it had decided on');
  assert.equal(write.token, sent.token);
  await enqueueWorkerCommand({ lab, worker: 'Armed', command: 'stop' });
  assert.equal(await run.exited, 0, run.output());
  const last = (await eventsOf(lab, 'Armed')).findLast((e) => e.kind.startsWith('worker_')); // its lease's expiry may come after
  assert.equal(last?.kind, 'worker_stopped');
  assert.equal(last?.detail.reason, 'the trainer stopped it');
});

test("the program's own end is its lane's stop reason in the Node runner's words; one that cannot run is refused with its stderr", {
  timeout: 90_000,
}, async () => {
  const { lab } = await privateLab('fenced');
  for (const { name, command, reason } of [
    { name: 'ExitCode', command: 'sleep 2; exit 7', reason: 'your program exited with code 7' },
    { name: 'Signalled', command: 'sleep 2; kill -s KILL $$', reason: 'your program was ended by SIGKILL' },
  ]) {
    const run = await runnerIn(lab, name, ['--exec', command]);
    assert.equal(await run.exited, 1, `a program that fails is the lane's failure: ${run.output()}`);
    const last = (await eventsOf(lab, name)).at(-1);
    assert.equal(last?.kind, 'worker_stopped', run.output());
    assert.equal(last?.detail.reason, reason);
    assert.match(run.output(), new RegExp(`^${name} stopped \\(${reason}\\)$`, 'm'));
  }
  const missing = await runnerIn(lab, 'Missing', ['--', 'no-such-program-of-fencing-lab', '--flag']);
  assert.equal(await missing.exited, 1, missing.output());
  assert.match(missing.output(), /could not run: your program exited with code 127 within 1 s, saying:\n.*not found/);
  const last = (await eventsOf(lab, 'Missing')).at(-1);
  assert.equal(last?.kind, 'worker_stopped');
  assert.equal(last?.detail.reason, 'your program exited with code 127 at once');
});

/** The pids of the program's processes with the marker ('' when none). */
const running = (marker: string) =>
  readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => programHas(pid, marker))
    .join(' ');

test('Ctrl-C on the runner ends the program with it, its stop recorded; a runner killed outright leaves none either', {
  timeout: 90_000,
}, async () => {
  const { lab } = await privateLab('fenced');
  for (const { name, signal } of [
    { name: 'CtrlC', signal: 'SIGINT' },
    { name: 'Killed', signal: 'SIGKILL' },
  ] as const) {
    const marker = `python-runner-${name}-${process.pid}`;
    const run = await runnerIn(lab, name, ['--', ...PYTHON.split(' '), 'clients/python/minimal.py', marker]);
    await waitFor(
      async () => (await eventsOf(lab, name)).some((e) => e.kind === 'write_accepted'),
      `a write of the lane (it said: ${run.output()})`,
      { timeoutMs: 30_000 },
    );
    assert.notEqual(running(marker), '', 'the program runs');
    // Ctrl-C in the terminal: SIGINT to the foreground group, the runner's (the program has a group of its own).
    process.kill(-(run.child.pid as number), signal);
    await run.exited;
    await waitFor(() => running(marker) === '', `no process of the program left (${running(marker)})`, {
      timeoutMs: 10_000,
    });
    if (signal === 'SIGINT') {
      const last = (await eventsOf(lab, name)).findLast((e) => e.kind.startsWith('worker_'));
      assert.equal(last?.kind, 'worker_stopped');
      assert.equal(last?.detail.reason, 'its runner was stopped with Ctrl-C (SIGINT)');
      assert.equal(await run.exited, 0, run.output());
    }
  }
});

test("a join the lab refuses is told in words, with the protocol's code or the database's words, exit 2, and the program never starts", {
  timeout: 60_000,
}, async () => {
  // The shared fenced lab, not opened to remote workers: not_open.
  const line = await testWorkerLineUrl({ who: 'python-runner-refused', lab: 'fenced' });
  // A program that would stay alive (sh waits on sleep before its echo) if the runner ever started it.
  const marker = `never-started-${process.pid}`;
  const program = ['--exec', `sleep 30; echo ${marker}`];
  const shared = startRunner(['--db', line, '--lab', 'fenced', '--name', 'Refused', ...program]);
  assert.equal(await shared.exited, 2, shared.output());
  assert.match(
    shared.output(),
    /^the lab fenced refused Refused: this shared lab takes no remote workers now: your trainer opens it to them on the lab's page \(not_open, docs\/protocol\.md\)$/m,
  );
  // A private lab without its key is no lab to this line: no_lab.
  const { lab } = await privateLab('fenced');
  const keyless = startRunner(['--db', line, '--lab', lab, '--name', 'Refused', ...program]);
  assert.equal(await keyless.exited, 2, keyless.output());
  assert.match(
    keyless.output(),
    /refused Refused: no such lab in this database, or a private lab without its --join-key \(no_lab,/,
  );
  // A name the runner lets through and the database refuses (it raises, 22023): its words, no traceback.
  const named = startRunner(['--db', line, '--lab', 'fenced', '--name', 'w7', ...program]);
  assert.equal(await named.exited, 2, named.output());
  assert.match(named.output(), /^the lab fenced refused w7: names like w1 are kept for worker ids$/m);
  for (const run of [shared, keyless, named]) {
    assert.doesNotMatch(run.output(), / joined |Traceback/, 'nothing joined, and no traceback');
  }
  assert.deepEqual(
    readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && programHas(pid, marker)),
    [],
    'the program never started',
  );
  assert.deepEqual(
    (await eventsOf(lab, 'Refused')).map((e) => e.kind),
    [],
    'the private lab recorded nothing of it',
  );
});

test('a bad command line is refused in words, exit 2, before anything joins', { timeout: 30_000 }, async () => {
  const url = 'postgres://nobody@127.0.0.1:1/none';
  for (const { args, words } of [
    { args: ['--lab', 'fenced', '--', 'true'], words: /the following arguments are required: --name/ },
    { args: ['--db', url, '--lab', 'fenced', '--name', 'A'], words: /the program: after --, or --exec/ },
    { args: ['--db', 'mysql://x', '--lab', 'fenced', '--name', 'A', '--', 'true'], words: /--db: your worker line/ },
    { args: ['--db', url, '--lab', 'fenced', '--name', 'A', '--join-key', 'x', '--', 'true'], words: /--join-key/ },
    { args: ['--db', url, '--lab', 'fenced', '--name', ' A', '--', 'true'], words: /--name: 1 to 40/ },
    { args: ['--db', url, '--lab', 'fenced', '--name', 'A', '--bogus', '--', 'true'], words: /unrecognized arguments/ },
  ]) {
    const run = startRunner(args);
    assert.equal(await run.exited, 2, `${args.join(' ')}: ${run.output()}`);
    assert.match(run.output(), words);
    assert.match(run.output(), /^usage: runner\.py /m);
  }
});
