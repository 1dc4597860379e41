import 'server-only';
import { listEvents } from '../../db/events';
import { stageGuardToken } from '../../db/your-guard';
import type { LabEvent } from '../model/core/events';
import { toWire, type WireEvent } from '../model/core/wire';
import type { LabInstance } from '../model/lab/lab-instance';
import type { StoryDriver } from '../model/story/story-engine';
import { StoryStalled } from '../model/story/story-engine';
import { getSupervisor } from './supervisor';
import { STEP_TIMEOUT_MS, WaitStopped, waitForLabEvents } from './wait-for-event';

/*
 * The story engine's driver on the server (lib/model/story/story-engine.ts): each action through the
 * supervisor that runs the lab's real worker processes, and each wait on the events the database
 * recorded (waitForLabEvent, every 25 ms), read as the story's facts. The scenarios of
 * `npm run scenario`, the timed pause (sweeps, what-if forks) and the guard attack run on it.
 */

export type ServerStoryDriver<F> = StoryDriver<F> & {
  /** The facts as the events are now (after the story's reset, when it had one). */
  facts(): Promise<F>;
};

/**
 * `facts` reads the story's facts from the lab's events since its reset; `signal` (someone stopped
 * a sweep) ends the story at its next wait with a WaitStopped.
 */
export function serverStoryDriver<F>(
  lab: LabInstance,
  facts: (events: readonly WireEvent[]) => F,
  signal?: AbortSignal,
): ServerStoryDriver<F> {
  const supervisor = getSupervisor();
  let mark = 0;
  const since = (events: readonly LabEvent[]) => events.filter((e) => e.id > mark);
  const stopped = () => {
    if (signal?.aborted) throw new WaitStopped();
  };
  return {
    async reset() {
      stopped();
      await supervisor.resetLab(lab);
      mark = (await listEvents({ lab: lab.id })).at(-1)?.id ?? 0;
    },
    async start(settings) {
      stopped();
      await supervisor.startWorker(lab, settings);
    },
    async freeze(worker, ms) {
      stopped();
      await supervisor.pause(
        lab,
        worker,
        ms === undefined ? { mode: 'critical-window' } : { mode: 'critical-window', seconds: ms / 1000 },
      );
    },
    async resume(worker) {
      stopped();
      await supervisor.resume(lab, worker);
    },
    async hold(worker) {
      stopped();
      await supervisor.holdConnection(lab, worker);
    },
    async release(worker) {
      stopped();
      await supervisor.releaseConnection(lab, worker);
    },
    async stageToken(token) {
      stopped();
      await stageGuardToken(lab.id, token);
    },
    async waitFor(what, done, timeoutMs = STEP_TIMEOUT_MS) {
      try {
        await waitForLabEvents(
          lab,
          what,
          (events) => done(facts(since(events).map(toWire))),
          signal ? { timeoutMs, signal } : { timeoutMs },
        );
      } catch (error) {
        if (error instanceof WaitStopped) throw error;
        throw new StoryStalled(error instanceof Error ? error.message : String(error));
      }
    },
    async facts() {
      return facts(since(await listEvents({ lab: lab.id })).map(toWire));
    },
  };
}
