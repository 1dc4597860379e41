import 'server-only';
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { cookies } from 'next/headers';
import { createTrainerSession, isLiveTrainerSession, revokeTrainerSession } from '../../db/trainer-sessions';
import type { ActionResult } from '../model/core/action-result';
import { trainerKeyInput } from '../model/lab/lab-inputs';
import { singleton } from '../os/process-singletons';
import { isTrainerKey, TRAINER_COOKIE, trainerKey, trainerProofOf } from './access';

/*
 * The trainer's session: entering the trainer key (the form, or the trainer link /unlock?key=…)
 * opens a session that lasts TRAINER_SESSION_HOURS; the browser's HTTP-only cookie holds a random
 * session id, the database only its hash. "Stop driving" ends the session on the server, so a copy
 * of the cookie replayed later drives nothing; so does an expired one, or one from a server started
 * with another key. The one unlock path for the form and the link.
 */

const TRAINER_SESSION_HOURS = 12;
const TRAINER_SESSION_MS = TRAINER_SESSION_HOURS * 3_600_000;
const WRONG_KEY_DELAY_MS = 400;

/**
 * A wrong key is answered after WRONG_KEY_DELAY_MS, and wrong keys are answered one at a time,
 * server-wide: guesses sent in parallel gain nothing (at most a few a second in all), while the
 * right key, checked first, never waits behind them.
 */
function answerWrongKey(): Promise<void> {
  const queue = singleton('server.wrong-keys', () => ({ last: Promise.resolve() }));
  const turn = queue.last.then(() => sleep(WRONG_KEY_DELAY_MS));
  queue.last = turn;
  return turn;
}

function sessionIdHash(sessionId: string): string {
  return createHash('sha256').update(`fencing-lab trainer session:${sessionId}`).digest('hex');
}

/**
 * Checks the key; if right, opens a trainer session and leaves its cookie (server actions and route
 * handlers alike). A little slower on a wrong key: guessing a key someone chose by hand should not
 * be quick.
 */
export async function unlockTrainer(input: unknown): Promise<ActionResult<{ trainer: true }>> {
  const parsed = trainerKeyInput.safeParse(input);
  if (!parsed.success) {
    await answerWrongKey();
    return { ok: false, error: { code: 'invalid_input', message: parsed.error.issues[0]?.message ?? 'invalid key' } };
  }
  if (!isTrainerKey(parsed.data.key)) {
    await answerWrongKey();
    return { ok: false, error: { code: 'forbidden', message: 'that is not the trainer key' } };
  }
  const sessionId = randomBytes(32).toString('base64url');
  await createTrainerSession({
    idHash: sessionIdHash(sessionId),
    keyProof: trainerProofOf(trainerKey()),
    ttlMs: TRAINER_SESSION_MS,
  });
  (await cookies()).set(TRAINER_COOKIE, sessionId, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    maxAge: TRAINER_SESSION_MS / 1000,
  });
  return { ok: true, data: { trainer: true } };
}

/** Ends this browser's trainer session on the server, and drops its cookie. */
export async function lockTrainer(): Promise<void> {
  const jar = await cookies();
  const sessionId = jar.get(TRAINER_COOKIE)?.value;
  if (sessionId) await revokeTrainerSession(sessionIdHash(sessionId));
  jar.delete(TRAINER_COOKIE);
}

/**
 * The trainer's proof for the session id a cookie holds, if that session is live: derived by the
 * server (never the cookie's value), so that lib/server/access.ts can judge it without the database.
 */
export async function trainerProofForSession(sessionId: string | undefined): Promise<string | undefined> {
  if (!sessionId) return undefined;
  const keyProof = trainerProofOf(trainerKey());
  try {
    return (await isLiveTrainerSession({ idHash: sessionIdHash(sessionId), keyProof })) ? keyProof : undefined;
  } catch (error) {
    // No database, no session: the caller watches (and the page says the database is away).
    console.error('[access] could not check a trainer session:', (error as Error).message);
    return undefined;
  }
}
