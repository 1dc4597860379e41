import 'server-only';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { localWorkerUrlFrom } from '../../db/roles';
import { PROJECT_ROOT } from '../launcher/paths';
import { toWire } from '../model/core/wire';
import type { LabInstance } from '../model/lab/lab-instance';
import { StoryStalled } from '../model/story/story-engine';
import type { ServerStoryDriver } from '../supervisor/story-driver';
import { getSupervisor } from '../supervisor/supervisor';
import { workerEntry } from '../supervisor/worker-process';
import { STARTED_BY_ENV } from '../worker/local-start';

/*
 * A person's program as A or B of the pause story (issue 36, item 5): `npm run scenario -- pause
 * --exec-a "<command>"`. The story's start of that worker runs `npm run worker -- --exec "<command>"`
 * (lib/worker/exec-lane.ts), or another runner with the same options (`--runner`, the Python one:
 * clients/python/runner.py), on this machine, as the local worker role: it joins under the worker's
 * name, runs the program, and freezes it for real in its critical window when the story freezes it.
 * Everything else is the story as our workers tell it; the program's own words go to stderr, each
 * line under its name, so that stdout stays the narration (and --json stays JSON).
 */

/** The story's workers that are a person's program: by name, the command. */
export type ExecLanes = Partial<Record<'A' | 'B', string>>;

/** A lane that ended before the story did: how long the story waits for its last words. */
const LAST_WORDS_MS = 500;
/** Longer than a runner's own stop (its window's release, its program's grace, its group's end: about 7 s). */
const STOP_GRACE_MS = 10_000;

/** Every story's lanes still running in this process: the command's clean-up stops them on any way out. */
const running = new Set<() => Promise<void>>();

/** Stops every runner a story of this process started and has not stopped (main.ts's clean-up). */
export async function stopAllExecLanes(): Promise<void> {
  await Promise.all([...running].map((stop) => stop()));
}
/** How often the supervisor is shown the lab's workers while the story waits (it records expiries meanwhile). */
const LOOK_EVERY_MS = 1_000;

type Lane = { name: string; command: string; child: ChildProcess; said: string[]; exited: Promise<unknown> };

/**
 * The story's driver (made with `stalledStory`'s signal) with the named workers run as programs. `stop()` ends every runner it started
 * (SIGTERM, then SIGKILL after 5 s): the story's stopLab asks first, through the database.
 */
export function withExecLanes<F>(
  driver: ServerStoryDriver<F>,
  lab: LabInstance,
  lanes: ExecLanes,
  /** `runner`: another runner's command (the Python one), given the worker's --db, --lab, --name and --exec. */
  local: { ownerUrl: string; password: string; runner?: string | undefined },
  /** Aborted when a lane ends before the story: the driver's wait then stops too. */
  stalledStory: AbortController,
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): ServerStoryDriver<F> & { stop(): Promise<void> } {
  const started: Lane[] = [];
  let ended: ((lane: Lane) => void) | undefined;
  const endedEarly = new Promise<Lane>((resolve) => {
    ended = resolve;
  });
  const run = (name: string, command: string): Lane => {
    const args = ['--db', localWorkerUrlFrom(local.ownerUrl, local.password), '--lab', lab.id, '--name', name];
    // A worker run as by hand (not one a server forked, which may not run a program as its lane).
    const { [STARTED_BY_ENV]: _forked, ...env } = process.env;
    const child = local.runner
      ? // Its words then the runner's arguments, each one word: sh runs it as the person would type it.
        spawn('/bin/sh', ['-c', `exec ${local.runner} "$@"`, 'runner', ...args, '--exec', command], {
          cwd: PROJECT_ROOT,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn(process.execPath, ['--conditions=react-server', ...workerEntry(), ...args, '--exec', command], {
          cwd: PROJECT_ROOT,
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
    // A spawn that fails ('error' before 'exit') ends the lane all the same: its stderr says why.
    const exited = once(child, 'exit').catch(() => undefined);
    const lane: Lane = { name, command, child, said: [], exited };
    const relay = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        lane.said.push(line);
        say(`${name}| ${line}`);
      }
    };
    child.stdout?.on('data', relay);
    child.stderr?.on('data', relay);
    void lane.exited.then(() => ended?.(lane));
    return lane;
  };
  const stop = async () => {
    ended = undefined;
    running.delete(stop);
    await Promise.all(
      started.map(async (lane) => {
        if (lane.child.exitCode !== null || lane.child.signalCode !== null) return;
        lane.child.kill('SIGTERM');
        const gone = await Promise.race([lane.exited.then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
        if (!gone) lane.child.kill('SIGKILL');
        await lane.exited;
      }),
    );
  };
  running.add(stop);
  const stalled = async () => {
    const lane = await endedEarly;
    await sleep(LAST_WORDS_MS);
    stalledStory.abort();
    const words = lane.said.slice(-5).join('\n  ');
    throw new StoryStalled(
      `${lane.name}, your program ${JSON.stringify(lane.command)}, ended before the story did${words ? `; it said:\n  ${words}` : ''}`,
    );
  };
  return {
    ...driver,
    async start(settings) {
      const command = lanes[settings.name as 'A' | 'B'];
      if (command === undefined) return driver.start(settings);
      started.push(run(settings.name, command));
    },
    async waitFor(what, done, timeoutMs) {
      // The supervisor records lease expiries while it sees live workers (a frozen holder cannot say
      // its lease ran out): a program's lane is not its process, so it is shown the lab's workers.
      const supervisor = getSupervisor();
      let looking = false;
      const look = setInterval(() => {
        if (looking) return;
        looking = true;
        void supervisor
          .listWorkers(lab)
          .catch(() => undefined) // a look that fails is tried again at the next
          .finally(() => {
            looking = false;
          });
      }, LOOK_EVERY_MS);
      try {
        await supervisor.listWorkers(lab);
        await Promise.race([driver.waitFor(what, done, timeoutMs), stalled()]);
      } catch (error) {
        if (!(error instanceof StoryStalled)) throw error;
        // What the lab recorded, so that a stalled story says what your program did, not only what it did not.
        const last = (await listEvents({ lab: lab.id })).slice(-12).map(toWire);
        const lines = last.map(
          (e) => `${e.actor} ${e.kind}${e.token === undefined ? '' : ` ${e.token}`} ${JSON.stringify(e.detail)}`,
        );
        throw new StoryStalled(`${error.message}; the lab's last events:\n  ${lines.join('\n  ')}`);
      } finally {
        clearInterval(look);
      }
    },
    stop,
  };
}
