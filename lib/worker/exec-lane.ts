import 'server-only';
import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { appendEvent } from '../../db/events';
import {
  beatRemoteWorker,
  criticalWindowReached,
  holdCriticalWindow,
  markRemoteWorkerStopped,
  releaseCriticalWindow,
  takeWorkerCommands,
} from '../../db/remote-workers';
import type { Token } from '../model/core/token';
import type { LabInstance } from '../model/lab/lab-instance';
import type { PauseTrigger } from './protocol';

/*
 * Any program as a lane (issue 36, item 3): `npm run worker -- … --exec "python3 my_client.py"`. The
 * worker has joined the lab; it runs the program in a process group of its own, hands it the
 * connection and its identity in environment variables (FENCING_LAB_URL, FENCING_LAB_LAB,
 * FENCING_LAB_NAME, FENCING_LAB_INSTANCE, FENCING_LAB_KIND: the program calls the lease and write functions with them,
 * docs/protocol.md, and neither joins nor beats), beats for it, and relays the lab's commands as
 * signals to the whole group: a pause is SIGSTOP then SIGCONT (a real freeze of the person's program,
 * on the timeline), a crash SIGKILL, a stop SIGTERM then SIGKILL. The program's end (its code or its
 * signal) is recorded. An armed pause strikes in the program's critical window: the runner holds the
 * lane's window in the database (worker_hold_critical_window), so the program's next write_sent (it
 * has decided to write) waits there; the runner sees it waiting, freezes the program, and lets the
 * write_sent in. The program's write goes out when it thaws, with the token it had. It runs where the person typed it: never on the server at a browser's request.
 */

/** A program that ends within this long of its start is refused as one that could not run, with its first stderr lines. */
const STARTS_WITHIN_MS = 1_000;
const BEAT_EVERY_MS = 500;
/** How often an armed runner looks whether the program waits at its critical window. */
const WINDOW_POLL_MS = 10;
const STOP_GRACE_MS = 3_000;
const GROUP_POLL_MS = 50;

export type ExecLane = {
  command: string;
  databaseUrl: string;
  me: { lab: string; name: string; instance: string };
  lab: LabInstance;
  session: pg.Client;
  /** What its start recorded: its stop carries it too. */
  detail: Record<string, unknown>;
};

type Exit = { code: number | null; signal: NodeJS.Signals | null };

const endWords = (exit: Exit) =>
  exit.signal ? `your program was ended by ${exit.signal}` : `your program exited with code ${exit.code}`;

/**
 * The program as the lab's history names it, for everyone watching the lab and every download: its
 * name and its script's, never the rest of what was typed (a password in an argument or a variable
 * stays on the person's machine). "PGPASSWORD=… python3 -u my_client.py --key x" is "python3".
 */
export function execShownAs(command: string): string {
  const words = command
    .trim()
    .split(/\s+/)
    .filter((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  const base = (word: string) => word.split('/').filter(Boolean).at(-1) ?? word;
  const [program, script] = words;
  if (program === undefined) return '';
  const shown =
    script !== undefined && /^[\w.-]+(\/[\w.-]+)*\.\w+$/.test(script)
      ? `${base(program)} ${base(script)}`
      : base(program);
  return shown.slice(0, 60);
}

/** Why a lane ended when its runner was told to end, as its stop records it (and the class wall shows it). */
export const interruptedWords = (signal: string) =>
  signal === 'SIGINT' ? 'its runner was stopped with Ctrl-C (SIGINT)' : `its runner was ended by ${signal}`;

/** The signals that end the runner, and so its program: Ctrl-C, a kill, a closed terminal. */
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs the lane until the program ends or the lab stops it; returns the worker's exit code (0 or 1).
 * The program never outlives it: a signal to the runner (any number of them, from its first moment)
 * stops the program first, and every other way out, an error or process.exit, kills its group.
 */
export async function runExecLane(lane: ExecLane): Promise<number> {
  let interruption: string | undefined;
  let interrupt: (signal: string) => void = () => undefined;
  const interrupted = new Promise<string>((resolve) => {
    interrupt = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    interruption ??= signal;
    interrupt(signal);
  };
  for (const signal of ENDING_SIGNALS) process.on(signal, onSignal);
  let groupId: number | undefined;
  const killGroupNow = () => {
    if (groupId === undefined) return;
    try {
      process.kill(-groupId, 'SIGCONT');
      process.kill(-groupId, 'SIGKILL');
    } catch {
      // ESRCH: the group has ended already.
    }
  };
  let keeper: ChildProcess | undefined;
  const endAll = () => {
    killGroupNow();
    keeper?.kill('SIGKILL');
  };
  process.on('exit', endAll);
  try {
    return await runLane(lane, {
      interrupted,
      interruption: () => interruption,
      started: (pid) => {
        groupId = pid;
      },
      // Its group seen gone: never signalled again (its id may be another's by then).
      ended: () => {
        groupId = undefined;
      },
      keeping: (k) => {
        keeper = k;
      },
    });
  } finally {
    endAll();
    process.off('exit', endAll);
    for (const signal of ENDING_SIGNALS) process.off(signal, onSignal);
  }
}

/**
 * A runner ended by SIGKILL (or a crash of node) handles nothing: its program, in a group of its own,
 * would run on with nobody to stop it. A keeper in a group of its own waits on a pipe from the runner;
 * the pipe closes when the runner ends however it ends, and the keeper then kills the program's group.
 * A runner that saw its program's group end, or that ends itself, kills the keeper first (that group's id
 * may be reused once it has ended). The shell's own kill (dash's takes `-s KILL --`): no procps needed.
 */
function keepOnlyWhileRunnerLives(groupId: number) {
  const keeper = spawn(
    '/bin/sh',
    ['-c', 'read _; kill -s KILL -- "-$1" 2>/dev/null', 'fencing-lab-keeper', `${groupId}`],
    {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  keeper.on('error', () => undefined); // no keeper: the runner's own ways out still end the group
  keeper.stdin?.on('error', () => undefined); // EPIPE once the keeper is gone
  keeper.unref();
  (keeper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return keeper;
}

type Interruptions = {
  interrupted: Promise<string>;
  interruption: () => string | undefined;
  started: (pid: number) => void;
  ended: () => void;
  /** The keeper of the program's group: the runner's own end kills it, after the group. */
  keeping: (keeper: ChildProcess) => void;
};

async function runLane(
  lane: ExecLane,
  { interrupted, interruption, started, ended, keeping }: Interruptions,
): Promise<number> {
  const { me, lab, session } = lane;
  const event = (
    kind: 'worker_stopped' | 'worker_crashed' | 'pause_started' | 'pause_ended',
    detail: Record<string, unknown>,
    token?: Token,
  ) =>
    appendEvent(
      session,
      { lab: lab.id, actor: me.name, kind, resource: lab.resource, detail, ...(token === undefined ? {} : { token }) },
      { as: me },
    );
  const child = spawn('/bin/sh', ['-c', lane.command], {
    detached: true,
    stdio: ['ignore', 'inherit', 'pipe'],
    env: {
      ...process.env,
      FENCING_LAB_URL: lane.databaseUrl,
      FENCING_LAB_LAB: me.lab,
      FENCING_LAB_NAME: me.name,
      FENCING_LAB_INSTANCE: me.instance,
      FENCING_LAB_KIND: lab.kind,
    },
  });
  if (child.pid !== undefined) started(child.pid);
  const keeper = child.pid === undefined ? undefined : keepOnlyWhileRunnerLives(child.pid);
  if (keeper) keeping(keeper);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    if (stderr.length < 4_000) stderr += chunk.toString();
  });
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  const group = (signal: NodeJS.Signals) => {
    if (child.pid === undefined || exit) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already: its end is what `exited` reports.
    }
  };
  let pausedAt: number | undefined;
  let resumeTimer: NodeJS.Timeout | undefined;
  /** Whether any process of the program's group still runs (its shell may end before its children). */
  const groupRuns = () => {
    if (child.pid === undefined) return false;
    try {
      process.kill(-child.pid, 0);
      return true;
    } catch {
      // ESRCH: no process left in the group.
      return false;
    }
  };
  /** Waits for the whole group to end (a client's own cleanup: its lease released), then kills what is left. */
  const groupEnded = async () => {
    const deadline = Date.now() + STOP_GRACE_MS;
    while (groupRuns() && Date.now() < deadline) await sleep(GROUP_POLL_MS);
    if (groupRuns() && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile: nothing left to end.
      }
    }
    if (!groupRuns()) {
      ended();
      keeper?.kill('SIGKILL');
    }
  };
  const finish = async (kind: 'worker_stopped' | 'worker_crashed', reason: string, code: number) => {
    clearTimeout(resumeTimer);
    // The program's last words (a release, say) land before its lane's end is recorded; no orphan stays.
    await groupEnded();
    await event(kind, { ...lane.detail, reason }).catch(() => undefined); // the database may be away: the lane ends when its beats stop
    await markRemoteWorkerStopped(me, session).catch(() => undefined); // the same
    console.log(`${me.name} ${kind === 'worker_crashed' ? 'crashed' : 'stopped'} (${reason})`);
    return code;
  };

  const early = await Promise.race([
    exited,
    interrupted.then(() => undefined),
    sleep(STARTS_WITHIN_MS).then(() => undefined),
  ]);
  if (early) {
    // Its first lines, and its last: a traceback says what went wrong at its end.
    const all = stderr.trim().split('\n');
    const lines = (all.length <= 6 ? all : [...all.slice(0, 3), '…', ...all.slice(-3)]).join('\n');
    console.error(
      `${JSON.stringify(lane.command)} could not run: ${endWords(early)} within ${STARTS_WITHIN_MS / 1000} s${lines ? `, saying:\n${lines}` : ''}`,
    );
    return finish('worker_stopped', `${endWords(early)} at once`, 1);
  }

  /** An armed critical pause: how long it freezes the program once it strikes (undefined: until resumed). */
  let armed: { seconds: number | undefined } | undefined;
  const disarm = async () => {
    if (!armed) return undefined;
    armed = undefined;
    return releaseCriticalWindow(me, session);
  };
  const freeze = async (trigger: PauseTrigger, seconds: number | undefined) => {
    group('SIGSTOP');
    pausedAt = Date.now();
    // In the critical window, the program's write_sent was waiting: it goes in now (the program is
    // frozen and cannot act on its answer), and the freeze is recorded after it, with its token.
    const token = trigger === 'critical-window' ? await disarm() : undefined;
    await event('pause_started', { trigger, exec: execShownAs(lane.command) }, token);
    // A resume that fails (the database away) leaves the program frozen until the lab resumes it.
    if (seconds !== undefined) resumeTimer = setTimeout(() => void resume().catch(() => undefined), seconds * 1000);
  };
  let resuming = false;
  const resume = async () => {
    clearTimeout(resumeTimer);
    resumeTimer = undefined;
    if (resuming) return;
    resuming = true;
    try {
      await disarm();
      if (pausedAt === undefined) return;
      const frozenMs = Date.now() - pausedAt;
      // Recorded before the thaw: the program's held-back write goes out the moment it runs again,
      // and the timeline must show the freeze ended before it (whatever the database does meanwhile).
      // Still paused until then, so that no new pause starts (and is thawed) meanwhile.
      await event('pause_ended', { frozenMs, exec: execShownAs(lane.command) }).finally(() => {
        group('SIGCONT');
        pausedAt = undefined;
      });
    } finally {
      resuming = false;
    }
  };
  const stopChild = async (reason: string) => {
    await disarm().catch(() => undefined); // the database may be away: the window goes with the session
    group('SIGCONT');
    group('SIGTERM');
    if (!(await Promise.race([exited.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]))) group('SIGKILL');
    await exited;
    return finish('worker_stopped', reason, 0);
  };

  for (;;) {
    if (exit) {
      clearTimeout(resumeTimer);
      return finish('worker_stopped', endWords(exit), exit.code === 0 ? 0 : 1);
    }
    const signal = interruption();
    if (signal) return stopChild(interruptedWords(signal));
    // Whether the program holds the lease is the program's to know: its lane says it runs, or is frozen.
    const phase = pausedAt === undefined ? 'running' : 'paused';
    const told = await beatRemoteWorker({ ...me, status: { phase, armed: armed !== undefined } }, session);
    if (told.stop) return stopChild(told.stop);
    for (const { command, seconds } of await takeWorkerCommands({ ...me, worker: me.name }, session)) {
      if (command === 'crash') {
        group('SIGKILL');
        await exited;
        return finish('worker_crashed', 'the trainer crashed it (SIGKILL to its process group)', 0);
      }
      if (command === 'stop') return stopChild('the trainer stopped it');
      if (command === 'resume') await resume();
      if (command === 'cancel-pauses') await disarm();
      if (command === 'pause-now' && pausedAt === undefined && !exit) {
        await disarm();
        await freeze('now', seconds);
      }
      if (command === 'arm-critical-pause' && pausedAt === undefined && !exit && !armed) {
        await holdCriticalWindow(me, session);
        armed = { seconds };
      }
    }
    const nextBeat = Date.now() + BEAT_EVERY_MS;
    // Armed: look every few ms whether the program waits at its window; freeze it there, then let it in.
    while (armed && pausedAt === undefined && !exit && !interruption() && Date.now() < nextBeat) {
      if (await criticalWindowReached(me, session)) {
        await freeze('critical-window', armed.seconds);
        break;
      }
      await Promise.race([exited, interrupted, sleep(WINDOW_POLL_MS)]);
    }
    await Promise.race([exited, interrupted, sleep(Math.max(0, nextBeat - Date.now()))]);
  }
}
