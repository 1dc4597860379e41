import type { WorkerSettings } from '../lab/lab-inputs';

/*
 * The one story engine. A story is a list of steps; each step does one thing to the real lab (start
 * a worker, freeze it in its critical window, release its held connection…) and is over when the
 * facts read from the events the database recorded say so, never after a guessed time. The
 * walkthroughs (the page drives them, one step a click), the headless scenarios of `npm run scenario`,
 * the timed pause of a sweep's runs and a what-if fork, and the guard attack all run their stories
 * through `runStory`; each brings a driver that does the actions where it runs (server actions from
 * the browser, the supervisor on the server) and reads the facts from what it sees of the events.
 * Pure: no React, pg or process.
 */

export type StoryAction<F> =
  | { kind: 'reset' }
  | { kind: 'start'; worker: string }
  /** A starts; once `once` holds of the facts (A holds the lease), B starts and waits for it. */
  | { kind: 'start-both'; once: (facts: F) => boolean }
  /** Frozen in its critical window: until resumed, or for `ms` when given (the timed pause). */
  | { kind: 'freeze-before-write'; worker: string; ms?: number }
  | { kind: 'resume'; worker: string }
  /** The delayed-packet labs: the packet relay holds the worker's connection from its next write on, then releases it. */
  | { kind: 'hold'; worker: string }
  | { kind: 'release'; worker: string }
  /** The your-guard lab: the token its next grant hands out (a stale writer's, from the guard's constants). */
  | { kind: 'stage-token'; token: number }
  | { kind: 'none' };

export type StoryStep<F> = {
  action: StoryAction<F>;
  /** What the story waits for after the action, in words (a stalled story says it). */
  waitingFor: string;
  done: (facts: F) => boolean;
  /** Longer than the driver's usual wait: a step that outlasts a pause it set. */
  timeoutMs?: number;
  /** A step the story may end without: its wait running out is no failure (B's write after a long pause). */
  optional?: true;
};

/** Where a story runs: each action done for real, and the wait on the recorded facts. */
export type StoryDriver<F> = {
  /** Resets the lab; the facts read afterwards are of the events after the reset. */
  reset(): Promise<void>;
  start(settings: WorkerSettings): Promise<void>;
  freeze(worker: string, ms?: number): Promise<void>;
  resume(worker: string): Promise<void>;
  hold(worker: string): Promise<void>;
  release(worker: string): Promise<void>;
  stageToken(token: number): Promise<void>;
  /** Resolves once `done` holds of the facts; rejects with a StoryStalled after its time. */
  waitFor(what: string, done: (facts: F) => boolean, timeoutMs?: number): Promise<void>;
};

/** A step that did not happen: what it waited for, or the action that failed, in words. */
export class StoryStalled extends Error {}

/** Does a step's action through the driver (the start-both's wait between A and B included). */
export async function performAction<F>(
  action: StoryAction<F>,
  settings: Readonly<Record<string, WorkerSettings>>,
  driver: StoryDriver<F>,
): Promise<void> {
  const settingsOf = (worker: string) => {
    const found = settings[worker];
    if (!found) throw new StoryStalled(`the story has no settings for worker ${worker}`);
    return found;
  };
  switch (action.kind) {
    case 'reset':
      return driver.reset();
    case 'start':
      return driver.start(settingsOf(action.worker));
    case 'start-both':
      await driver.start(settingsOf('A'));
      await driver.waitFor('A to hold the lease', action.once);
      return driver.start(settingsOf('B'));
    case 'freeze-before-write':
      return driver.freeze(action.worker, action.ms);
    case 'resume':
      return driver.resume(action.worker);
    case 'hold':
      return driver.hold(action.worker);
    case 'release':
      return driver.release(action.worker);
    case 'stage-token':
      return driver.stageToken(action.token);
    case 'none':
      return;
  }
}

/** One step: its action, then its wait on the facts (an optional step's wait may run out). */
export async function runStoryStep<F>(
  step: StoryStep<F>,
  settings: Readonly<Record<string, WorkerSettings>>,
  driver: StoryDriver<F>,
): Promise<void> {
  await performAction(step.action, settings, driver);
  try {
    await driver.waitFor(step.waitingFor, step.done, step.timeoutMs);
  } catch (error) {
    if (!(step.optional && error instanceof StoryStalled)) throw error;
  }
}

/** The steps in order; the first that fails ends the story (its error says which). */
export async function runStory<F>(
  steps: readonly StoryStep<F>[],
  settings: Readonly<Record<string, WorkerSettings>>,
  driver: StoryDriver<F>,
): Promise<void> {
  for (const step of steps) await runStoryStep(step, settings, driver);
}
