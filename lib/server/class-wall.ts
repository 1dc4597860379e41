import 'server-only';
import { getEventFeed } from '../../db/event-feed';
import { findGuardAttempt, type GuardAttempt, listGuardAttempts } from '../../db/guard-attempts';
import { queueFacts } from '../../db/guard-queue';
import type { WallClientRun } from '../model/checker/client-runs';
import type { WallAttempt } from '../model/guard/class-wall';
import type { GuardQueuePlace } from '../model/guard/guard-inputs';
import { queuePlace } from '../model/guard/guard-queue';
import { type Credentials, isTrainer, ownerHashOf, traineeKeyOf } from './access';
import { wallClientRunFor, wallClientRunsById, wallClientRunsFor } from './client-runs';
import type { Send } from './event-stream';

/*
 * Who sees what on the class wall: the trainer every trainee's attempts (for the projector), anyone
 * else only their own (their browser's owner secret). A trainee is shown by a key made from the
 * owner's hash, never by the hash itself.
 */

const WALL_LIMIT = 500;

function wallAttempt(attempt: GuardAttempt, queue: GuardQueuePlace | undefined): WallAttempt {
  return {
    id: attempt.id,
    trainee: traineeKeyOf(attempt.ownerHash),
    name: attempt.name,
    statement: attempt.statement,
    outcome: attempt.outcome,
    verdict: attempt.verdict,
    ...(queue ? { queue } : {}),
    hasCounterexample: attempt.hasCounterexample,
    at: attempt.createdAt.getTime(),
  };
}

/** Whose attempts the caller sees: everyone's (undefined) for the trainer, else its own hash; null: none. */
function viewerOf(credentials: Credentials): string | undefined | null {
  if (isTrainer(credentials)) return undefined;
  return credentials.ownerSecret ? ownerHashOf(credentials.ownerSecret) : null;
}

/**
 * The attempts as the wall shows them, each queued one with its place read from the queue: one read
 * for the whole list. One whose verdict came in between has no place; the feed sends its verdict.
 */
async function withPlaces(attempts: GuardAttempt[]): Promise<WallAttempt[]> {
  const queued = attempts.filter((attempt) => attempt.outcome === 'queued').map((attempt) => attempt.id);
  const facts = queued.length ? await queueFacts(queued) : new Map();
  return attempts.map((attempt) => {
    const fact = facts.get(attempt.id);
    return wallAttempt(attempt, fact ? queuePlace(fact) : undefined);
  });
}

export async function wallAttemptsFor(credentials: Credentials): Promise<WallAttempt[]> {
  const viewer = viewerOf(credentials);
  if (viewer === null) return [];
  return withPlaces(await listGuardAttempts({ ...(viewer ? { ownerHash: viewer } : {}), limit: WALL_LIMIT }));
}

/** One new or changed attempt (claimed, or its verdict in), if the caller may see it. */
export async function wallAttemptFor(id: number, credentials: Credentials): Promise<WallAttempt | undefined> {
  const viewer = viewerOf(credentials);
  if (viewer === null) return undefined;
  const attempt = await findGuardAttempt(id);
  if (!attempt || (viewer !== undefined && attempt.ownerHash !== viewer)) return undefined;
  return (await withPlaces([attempt]))[0];
}

/**
 * How often a wall reads again the client runs it shows as not ended: whether a runner still beats is
 * a matter of time (REMOTE_HEARTBEAT_FRESH_MS), not of a row that changes, so no NOTIFY says that one
 * went silent (killed without a word, its machine asleep, its lab reset) or came back.
 */
export const CLIENT_RUN_RECHECK_MS = 2_000;

/**
 * The caller's wall, live: first every attempt it may see (`attempts`) and every client run
 * (`clients`), then each new or changed one (`attempt`: in line, claimed, its verdict; `client`: started,
 * ended) as its row commits (NOTIFY fencing_guard_attempts and fencing_client_runs, through the
 * server's one LISTEN connection), and a run not ended again when its runner goes silent or beats again
 * (read every CLIENT_RUN_RECHECK_MS). Subscribed before the list is read, so none falls between; the
 * browser keeps the newest version of each id.
 */
export async function streamWall(credentials: Credentials, send: Send, close: () => void): Promise<() => void> {
  // The runs sent as not ended, with the state sent: the ones whose state time alone may change.
  const undecided = new Map<number, WallClientRun['state']>();
  const sendRun = (run: WallClientRun) => {
    if (run.state === 'ended') undecided.delete(run.id);
    else undecided.set(run.id, run.state);
    send({ event: 'client', data: run });
  };
  const unsubscribe = await getEventFeed().subscribe({
    onNote: (note) => {
      if (note.guardAttempt) {
        void wallAttemptFor(note.guardAttempt, credentials).then(
          (attempt) => attempt && send({ event: 'attempt', data: attempt }),
          () => close(),
        );
      }
      if (note.clientRun) {
        void wallClientRunFor(note.clientRun, credentials).then((run) => run && sendRun(run), close);
      }
    },
    onClose: close,
  });
  let rechecking = false;
  const recheck = setInterval(() => {
    if (rechecking || !undecided.size) return;
    rechecking = true;
    // One read for all of them, however many runs the wall shows as not ended.
    const ids = [...undecided.keys()];
    void wallClientRunsById(ids, credentials).then((runs) => {
      const found = new Map(runs.map((run) => [run.id, run]));
      for (const id of ids) {
        const run = found.get(id);
        if (!run) undecided.delete(id);
        else if (run.state !== undecided.get(id)) sendRun(run);
      }
      rechecking = false;
    }, close);
  }, CLIENT_RUN_RECHECK_MS);
  const stop = () => {
    clearInterval(recheck);
    unsubscribe();
  };
  try {
    send({ event: 'attempts', data: await wallAttemptsFor(credentials) });
    const runs = await wallClientRunsFor(credentials);
    for (const run of runs) if (run.state !== 'ended') undecided.set(run.id, run.state);
    send({ event: 'clients', data: runs });
  } catch (error) {
    stop();
    throw error;
  }
  return stop;
}
