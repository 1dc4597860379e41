import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { allSourceFiles } from '../../testing/source-files';
import { runStory, type StoryDriver, StoryStalled, type StoryStep } from './story-engine';

/*
 * The engine's order of things, with a driver that records what it was asked (the real runs: the
 * scenario, sweep, guard-attack and walkthrough tests, and the Playwright walkthroughs); and the rule
 * that makes it the one engine: no story runner drives workers or waits on events by itself.
 */

type Seen = { granted: boolean; wrote: boolean };

function recordingDriver(seen: Seen, log: string[], stallOn?: string): StoryDriver<Seen> {
  return {
    reset: async () => void log.push('reset'),
    start: async (settings) => {
      log.push(`start ${settings.name}`);
      if (settings.name === 'A') seen.granted = true;
      if (settings.name === 'B') seen.wrote = true;
    },
    freeze: async (worker, ms) => void log.push(`freeze ${worker}${ms ? ` ${ms}` : ''}`),
    resume: async (worker) => void log.push(`resume ${worker}`),
    hold: async (worker) => void log.push(`hold ${worker}`),
    release: async (worker) => void log.push(`release ${worker}`),
    stageToken: async (token) => void log.push(`stage ${token}`),
    waitFor: async (what, done) => {
      log.push(`wait ${what}`);
      if (what === stallOn || !done(seen)) throw new StoryStalled(`timed out waiting for: ${what}`);
    },
  };
}

const settings = {
  A: { name: 'A', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 700 },
  B: { name: 'B', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 30_000 },
};

test('each step does its action, then waits for its facts; start-both starts B only once A holds the lease', async () => {
  const log: string[] = [];
  const steps: StoryStep<Seen>[] = [
    { action: { kind: 'reset' }, waitingFor: 'the reset', done: () => true },
    { action: { kind: 'start-both', once: (f) => f.granted }, waitingFor: "B's write", done: (f) => f.wrote },
    { action: { kind: 'freeze-before-write', worker: 'A', ms: 2_000 }, waitingFor: 'A frozen', done: () => true },
  ];
  await runStory(steps, settings, recordingDriver({ granted: false, wrote: false }, log));
  assert.deepEqual(log, [
    'reset',
    'wait the reset',
    'start A',
    'wait A to hold the lease',
    'start B',
    "wait B's write",
    'freeze A 2000',
    'wait A frozen',
  ]);
});

test('a stalled step ends the story with what it waited for; an optional step may run out', async () => {
  const log: string[] = [];
  const optional: StoryStep<Seen> = {
    action: { kind: 'none' },
    waitingFor: "B's write",
    done: (f) => f.wrote,
    optional: true,
  };
  const last: StoryStep<Seen> = { action: { kind: 'resume', worker: 'A' }, waitingFor: 'A wakes', done: () => true };
  await runStory([optional, last], settings, recordingDriver({ granted: false, wrote: false }, log));
  assert.deepEqual(log, ["wait B's write", 'resume A', 'wait A wakes']);
  await assert.rejects(
    runStory(
      [{ ...optional, optional: undefined } as StoryStep<Seen>, last],
      settings,
      recordingDriver({ granted: false, wrote: false }, []),
    ),
    { message: "timed out waiting for: B's write" },
  );
});

test('one story engine: no story runner starts, freezes or waits on workers but through it', async () => {
  // The files that run a story: the walkthrough page, the scenarios, the timed pause, the guard attack.
  const runners = (await allSourceFiles()).filter(
    (file) =>
      !file.includes('.test.') &&
      (file.startsWith('lib/scenario/') ||
        file === 'lib/supervisor/timed-pause.ts' ||
        file === 'lib/chaos/guard-story.ts' ||
        file === 'lib/supervisor/what-if-run.ts' ||
        file.startsWith('lib/sweep/') ||
        file === 'components/lab/walkthrough/use-walkthrough.ts'),
  );
  assert.ok(runners.length >= 8, `runners found: ${runners.join(', ')}`);
  const driving =
    /\bwaitForLabEvents?\(|\.(startWorker|holdConnection|releaseConnection)\(|\b(supervisor|getSupervisor\(\))\.(pause|resume)\(|\bcommands\.(start|pause|hold|release)\(/;
  const own: string[] = [];
  for (const file of runners) {
    const source = await readFile(file, 'utf8');
    // The page's driver, in use-walkthrough.ts, is where its actions go through the server actions.
    const outsideDriver = file.endsWith('use-walkthrough.ts')
      ? source.replace(/const driver[\s\S]*?\n {6}};\n/, '')
      : source;
    if (driving.test(outsideDriver)) own.push(file);
  }
  assert.deepEqual(own, [], 'these drive workers or wait on events outside the story engine');
});
