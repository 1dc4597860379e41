import 'server-only';
import { createHash } from 'node:crypto';
import { getEventFeed } from '../../db/event-feed';
import { findGuardAttempt, type GuardAttempt, listGuardAttempts } from '../../db/guard-attempts';
import type { WallAttempt } from '../model/class-wall';
import { type Credentials, isTrainer, ownerHashOf } from './access';
import type { Send } from './event-stream';

/*
 * Who sees what on the class wall: the trainer every trainee's attempts (for the projector), anyone
 * else only their own (their browser's owner secret). A trainee is shown by a key made from the
 * owner's hash, never by the hash itself.
 */

const WALL_LIMIT = 500;

function wallAttempt(attempt: GuardAttempt): WallAttempt {
  return {
    id: attempt.id,
    trainee: createHash('sha256').update(`wall:${attempt.ownerHash}`).digest('hex').slice(0, 16),
    name: attempt.name,
    statement: attempt.statement,
    outcome: attempt.outcome,
    verdict: attempt.verdict,
    hasCounterexample: attempt.hasCounterexample,
    at: attempt.createdAt.getTime(),
  };
}

/** Whose attempts the caller sees: everyone's (undefined) for the trainer, else its own hash; null: none. */
function viewerOf(credentials: Credentials): string | undefined | null {
  if (isTrainer(credentials)) return undefined;
  return credentials.ownerSecret ? ownerHashOf(credentials.ownerSecret) : null;
}

export async function wallAttemptsFor(credentials: Credentials): Promise<WallAttempt[]> {
  const viewer = viewerOf(credentials);
  if (viewer === null) return [];
  return (await listGuardAttempts({ ...(viewer ? { ownerHash: viewer } : {}), limit: WALL_LIMIT })).map(wallAttempt);
}

/** One new attempt, if the caller may see it. */
export async function wallAttemptFor(id: number, credentials: Credentials): Promise<WallAttempt | undefined> {
  const viewer = viewerOf(credentials);
  if (viewer === null) return undefined;
  const attempt = await findGuardAttempt(id);
  if (!attempt || (viewer !== undefined && attempt.ownerHash !== viewer)) return undefined;
  return wallAttempt(attempt);
}

/**
 * The caller's wall, live: first every attempt it may see (`attempts`), then each new one (`attempt`)
 * as its row commits (NOTIFY fencing_guard_attempts, through the server's one LISTEN connection).
 * Subscribed before the list is read, so none falls between; the browser counts each id once.
 */
export async function streamWall(credentials: Credentials, send: Send, close: () => void): Promise<() => void> {
  const unsubscribe = await getEventFeed().subscribe({
    onNote: (note) => {
      if (!note.guardAttempt) return;
      void wallAttemptFor(note.guardAttempt, credentials).then(
        (attempt) => attempt && send({ event: 'attempt', data: attempt }),
        () => close(),
      );
    },
    onClose: close,
  });
  try {
    send({ event: 'attempts', data: await wallAttemptsFor(credentials) });
  } catch (error) {
    unsubscribe();
    throw error;
  }
  return unsubscribe;
}
