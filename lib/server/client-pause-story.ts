import 'server-only';
import { listEvents } from '../../db/events';
import type { ActionResult } from '../model/core/action-result';
import { FencingError } from '../model/core/errors';
import { toWire, type WireEvent } from '../model/core/wire';
import { labInput } from '../model/lab/lab-inputs';
import { type LabInstance, labTitle } from '../model/lab/lab-instance';
import { runStory, type StoryDriver, StoryStalled } from '../model/story/story-engine';
import {
  type ClientStoryFacts,
  clientPauseSteps,
  clientRunsAsA,
  clientStoryFacts,
  clientStoryProgress,
  tellsPauseStory,
} from '../model/walkthrough/client-pause-story';
import { walkthroughSettings } from '../model/walkthrough/walkthrough';
import { singleton } from '../os/process-singletons';
import { serverStoryDriver } from '../supervisor/story-driver';
import type { Credentials } from './access';
import { errorInWords } from './error-answers';
import {
  crashWorker,
  driverCommand,
  listWorkers,
  pauseWorker,
  restartWorker,
  resumeWorker,
  startWorker,
} from './lab-commands';

/*
 * The "Your client" panel's one button (issue 36): the pause story with the person's own client as A,
 * told on the server. A is the person's process, started by them; this starts no program. Every
 * action goes through the lab's own commands (lab-commands.ts) with the presser's credentials, as if
 * they pressed each control by hand: who may drive the lab may play it, each step is authorised again,
 * and each takes its turn in the lab's queue (so a reset is never held up by a story). The story is
 * the walkthrough's from A's freeze on (lib/model/walkthrough/client-pause-story.ts), waited on through
 * the recorded events; the page shows its progress from the same events, and asks here only how it ended.
 */

export type ClientStoryStatus =
  | { state: 'none' }
  | { state: 'running'; mark: number }
  | { state: 'done'; mark: number; words: string }
  | { state: 'failed'; mark: number; message: string };

/** The server's stories, by lab: the one running in a lab, or how the last one ended. */
const stories = () => singleton('server.client-pause-stories', () => new Map<string, ClientStoryStatus>());

/** How long a story's end is kept for its page (which asks every second while it runs). */
const ENDED_KEPT_MS = 10 * 60_000;
/** How often the story shows the supervisor the lab's workers: it records expiries while it sees live ones. */
const LOOK_EVERY_MS = 1_000;

const NOT_RUNNING =
  'A is not running: start your client as A first (your worker line\'s command with --name A --exec "…"), and press again once this panel lists it';

/** Starts the story in the lab and returns at once: the event it begins after, for the page's progress. */
export const playClientPauseStory = (raw: unknown, credentials: Credentials) =>
  driverCommand(labInput, async (lab) => {
    if (!tellsPauseStory(lab.kind))
      throw new FencingError('invalid_input', `the ${labTitle(lab)} lab tells a story of its own, not the pause`);
    if (lab.closedAt) throw new FencingError('lab_closed', 'this lab is closed');
    if (stories().get(lab.id)?.state === 'running')
      throw new FencingError('invalid_input', 'the pause story is already playing in this lab');
    const events = (await listEvents({ lab: lab.id })).map(toWire);
    const workers = await unwrap(listWorkers({ lab: lab.id }, credentials), "the lab's workers could not be read");
    const a = workers.find((w) => w.name === 'A');
    if (!clientRunsAsA(events) || !a?.alive) throw new FencingError('invalid_input', NOT_RUNNING);
    const mark = events.at(-1)?.id ?? 0;
    stories().set(lab.id, { state: 'running', mark });
    void tellStory(lab, credentials, mark)
      .catch(
        (error: unknown): ClientStoryStatus => ({
          state: 'failed',
          mark,
          message: `The story stopped: ${errorInWords(error, 'action').message}.`,
        }),
      )
      .then((ended) => {
        stories().set(lab.id, ended);
        // Kept for the page to read how it ended, then let go (private labs come and go).
        setTimeout(() => {
          if (stories().get(lab.id) === ended) stories().delete(lab.id);
        }, ENDED_KEPT_MS).unref();
      });
    return { mark };
  })(raw, credentials);

/** How the lab's story stands on this server (the page polls it while its story runs). */
export const clientPauseStoryStatus = (raw: unknown, credentials: Credentials) =>
  driverCommand(labInput, async (lab): Promise<ClientStoryStatus> => stories().get(lab.id) ?? { state: 'none' })(
    raw,
    credentials,
  );

async function unwrap<T>(result: Promise<ActionResult<T>>, failed: string): Promise<T> {
  const answer = await result;
  if (!answer.ok) throw new StoryStalled(`${failed}: ${answer.error.message}`);
  return answer.data;
}

/** The story, told to its end: how it ended, in words. */
async function tellStory(lab: LabInstance, credentials: Credentials, mark: number): Promise<ClientStoryStatus> {
  const at = { lab: lab.id };
  const kind = lab.kind;
  const base = serverStoryDriver(lab, (events: readonly WireEvent[]) => clientStoryFacts(events, mark, kind));
  let frozen = false;
  const driver: StoryDriver<ClientStoryFacts> = {
    ...base,
    reset: () => Promise.reject(new StoryStalled('this story does not reset the lab')),
    async start(settings) {
      // Our worker B: the one running, else the one that ran (restarted), else a new one.
      const workers = await unwrap(listWorkers(at, credentials), "the lab's workers could not be read");
      const b = workers.find((w) => w.name.toLowerCase() === settings.name.toLowerCase());
      if (b?.alive) return;
      if (b) await unwrap(restartWorker({ ...at, worker: b.name }, credentials), `${b.name} could not be restarted`);
      else await unwrap(startWorker({ ...at, settings }, credentials), `${settings.name} could not start`);
    },
    async freeze(worker) {
      await unwrap(
        pauseWorker({ ...at, worker, plan: { mode: 'critical-window' } }, credentials),
        `${worker} could not be frozen`,
      );
      frozen = true;
    },
    async resume(worker) {
      await unwrap(resumeWorker({ ...at, worker }, credentials), `${worker} could not be resumed`);
      frozen = false;
    },
    async waitFor(what, done, timeoutMs) {
      // The look also tells a runner that went silent (killed without a word: no end recorded), as
      // the worker list does: its heartbeat is late. A frozen client's runner goes on beating. Two
      // looks in a row, so that a reset (which stops A first, then clears the history) is said as one.
      let missedA = 0;
      const look = setInterval(
        () =>
          void listWorkers(at, credentials).then((answer) => {
            if (!answer.ok) return;
            missedA = answer.data.some((w) => w.name === 'A' && w.alive) ? 0 : missedA + 1;
          }),
        LOOK_EVERY_MS,
      );
      try {
        await base.waitFor(
          what,
          (f) => {
            if (f.resetSince) throw new StoryStalled('the lab was reset while the story played');
            if (f.endA && !f.lateWriteA)
              throw new StoryStalled(`A ended mid-story (${endWords(f.endA.detail)}) while waiting for ${what}`);
            if (missedA >= 2 && !f.lateWriteA)
              throw new StoryStalled(`A stopped answering the lab mid-story while waiting for ${what}`);
            return done(f);
          },
          timeoutMs,
        );
      } finally {
        clearInterval(look);
      }
    },
  };
  try {
    await freeUpTheLease(at, credentials);
    await runStory(clientPauseSteps(kind), walkthroughSettings(kind), driver);
    return { state: 'done', mark, words: clientStoryProgress(await base.facts()) };
  } catch (error) {
    const message =
      error instanceof StoryStalled
        ? `The story stopped: ${error.message}.`
        : `The story stopped: ${errorInWords(error, 'action').message}.`;
    // A left frozen by a story that stopped is let go (a reset has stopped it already). A resume
    // refused too adds nothing: the story's own failure is what the page shows.
    if (frozen && !(await base.facts()).resetSince) await resumeWorker({ ...at, worker: 'A' }, credentials);
    return { state: 'failed', mark, message };
  }
}

/** Our B from an earlier story holds the lease and renews it: ended, so that A can take the lease again. */
async function freeUpTheLease(at: { lab: string }, credentials: Credentials): Promise<void> {
  const workers = await unwrap(listWorkers(at, credentials), "the lab's workers could not be read");
  const b = workers.find((w) => w.name === 'B');
  if (b?.alive && !b.remote) await unwrap(crashWorker({ ...at, worker: 'B' }, credentials), 'B could not be ended');
}

function endWords(detail: Record<string, unknown>): string {
  const reason = detail.reason;
  return typeof reason === 'string' ? reason : 'its runner ended';
}
