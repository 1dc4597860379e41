'use server';

import { cookies } from 'next/headers';
import type { ActionResult } from '@/lib/model/core/action-result';
import { COOKIE_MAX_AGE_S, newOwnerSecret, OWNER_COOKIE } from '@/lib/server/access';
import { currentClientAddress } from '@/lib/server/client-address';
import { clientPauseStoryStatus, playClientPauseStory } from '@/lib/server/client-pause-story';
import * as failover from '@/lib/server/failover-commands';
import { guardAttempt, lastGuard, submitGuard } from '@/lib/server/guard-commands';
import * as commands from '@/lib/server/lab-commands';
import * as doors from '@/lib/server/lab-door-commands';
import * as polls from '@/lib/server/poll-commands';
import { readCredentials } from '@/lib/server/request-credentials';
import * as sweeps from '@/lib/server/sweep-commands';
import { lockTrainer, unlockTrainer } from '@/lib/server/trainer-session';
import { forkWhatIf } from '@/lib/server/what-if';
import { issueMyWorkerLine } from '@/lib/server/worker-line-commands';

/*
 * The server actions: the caller's credentials come from its cookies, never from the input, and
 * every input is validated by the command it goes to (lib/server/lab-commands.ts).
 */

const credentials = readCredentials;

const cookieOptions = {
  httpOnly: true,
  sameSite: 'strict' as const,
  path: '/',
  maxAge: COOKIE_MAX_AGE_S,
};

export async function startWorkerAction(input: unknown) {
  return commands.startWorker(input, await credentials());
}
export async function pauseWorkerAction(input: unknown) {
  return commands.pauseWorker(input, await credentials());
}
export async function resumeWorkerAction(input: unknown) {
  return commands.resumeWorker(input, await credentials());
}
export async function crashWorkerAction(input: unknown) {
  return commands.crashWorker(input, await credentials());
}
export async function restartWorkerAction(input: unknown) {
  return commands.restartWorker(input, await credentials());
}
export async function holdConnectionAction(input: unknown) {
  return commands.holdConnection(input, await credentials());
}
export async function releaseConnectionAction(input: unknown) {
  return commands.releaseConnection(input, await credentials());
}
export async function resetLabAction(input: unknown) {
  return commands.resetLab(input, await credentials());
}
/** The walkthrough step the trainer shows now: what every watcher of the lab is shown. */
export async function recordWalkthroughStepAction(input: unknown) {
  return commands.recordWalkthroughStep(input, await credentials());
}
/** The "Your client" panel's button: the pause story with the person's client as A, told on the server. */
export async function playClientPauseStoryAction(input: unknown) {
  return playClientPauseStory(input, await credentials());
}
export async function clientPauseStoryStatusAction(input: unknown) {
  return clientPauseStoryStatus(input, await credentials());
}
export async function startChaosAction(input: unknown) {
  return commands.startChaos(input, await credentials());
}
/** A your-guard lab: the trainee's statement, checked, installed and attacked (lib/server/guard-commands.ts). */
export async function submitGuardAction(input: unknown) {
  return submitGuard(input, await credentials(), await currentClientAddress());
}

/** A submitted guard while it waits in line or is attacked: its place and estimate, then its verdict. */
export async function guardAttemptAction(input: unknown) {
  return guardAttempt(input, await credentials());
}
/** A your-guard lab's editor on load: its owner's last name, statement and verdict there. */
export async function lastGuardAction(input: unknown) {
  return lastGuard(input, await credentials());
}
export async function closePrivateLabAction(input: unknown) {
  return commands.closePrivateLab(input, await credentials());
}

/** Opens a private lab for this browser, giving it an owner secret first if it has none. */
export async function openPrivateLabAction(input: unknown) {
  const ownerSecret = await ownerSecretOfThisBrowser();
  return commands.openPrivateLab(input, { ownerSecret, address: await currentClientAddress() });
}

/** This browser's own worker line for a lab (lib/server/worker-line-commands.ts), giving it an owner secret first if it has none. */
export async function issueWorkerLineAction(input: unknown) {
  const ownerSecret = await ownerSecretOfThisBrowser();
  return issueMyWorkerLine(input, {
    credentials: await credentials(),
    ownerSecret,
    address: await currentClientAddress(),
  });
}

/** This browser's owner secret (its private labs'), given to it now if it has none. */
async function ownerSecretOfThisBrowser(): Promise<string> {
  const jar = await cookies();
  const held = jar.get(OWNER_COOKIE)?.value;
  if (held) return held;
  const ownerSecret = newOwnerSecret();
  jar.set(OWNER_COOKIE, ownerSecret, cookieOptions);
  return ownerSecret;
}

// Predict, then watch (lib/server/poll-commands.ts): the trainer asks and reveals, the room answers.
export async function askRoomAction(input: unknown) {
  return polls.askRoom(input, await credentials());
}
export async function revealAnswersAction(input: unknown) {
  return polls.revealAnswers(input, await credentials());
}
/** A trainee's answer: a browser without an owner secret is given one first (it is who answered). */
export async function answerQuestionAction(input: unknown) {
  const ownerSecret = await ownerSecretOfThisBrowser();
  return polls.answerQuestion(input, { credentials: await credentials(), ownerSecret });
}
export async function ownAnswersAction(input: unknown) {
  return polls.ownAnswers(input, await credentials());
}

/** Runs the story again from a moment with other settings, in a new private lab of this browser's. */
export async function forkWhatIfAction(input: unknown) {
  const ownerSecret = await ownerSecretOfThisBrowser();
  return forkWhatIf(input, { credentials: await credentials(), ownerSecret, address: await currentClientAddress() });
}

/** Checks the trainer key; if right, this browser drives the shared labs for the session's life. */
export async function unlockTrainerAction(input: unknown): Promise<ActionResult<{ trainer: true }>> {
  return unlockTrainer(input);
}

/** This browser stops driving the shared labs: its session ends on the server (it keeps its private labs). */
export async function lockTrainerAction(): Promise<ActionResult<{ trainer: false }>> {
  await lockTrainer();
  return { ok: true, data: { trainer: false } };
}

// The failover lab (lib/server/failover-commands.ts): the trainer's only.
export async function startFailoverPairAction(input: unknown) {
  return failover.startFailoverPair(input, await credentials());
}
export async function resetFailoverLabAction(input: unknown) {
  return failover.resetFailoverLab(input, await credentials());
}
export async function cutReplicationAction(input: unknown) {
  return failover.cutReplication(input, await credentials());
}
export async function healReplicationAction(input: unknown) {
  return failover.healReplication(input, await credentials());
}
export async function grantFailoverLeaseAction(input: unknown) {
  return failover.grantFailoverLease(input, await credentials());
}
export async function writeFailoverRowAction(input: unknown) {
  return failover.writeFailoverRow(input, await credentials());
}
export async function killFailoverPrimaryAction(input: unknown) {
  return failover.killFailoverPrimary(input, await credentials());
}
export async function promoteFailoverStandbyAction(input: unknown) {
  return failover.promoteFailoverStandby(input, await credentials());
}
export async function recordFailoverShownStepAction(input: unknown) {
  return failover.recordFailoverShownStep(input, await credentials());
}
/** What the failover lab shows, for anyone (polled by its page). */
export async function viewFailoverLabAction() {
  return failover.viewFailoverLab({});
}

export async function startSweepAction(input: unknown) {
  return sweeps.startSweep(input, await credentials());
}
export async function sweepStatusAction(input: unknown) {
  return sweeps.sweepStatus(input, await credentials());
}

export async function stopSweepAction(input: unknown) {
  return sweeps.stopSweep(input, await credentials());
}
/** A shared lab's trainer opens or closes it to remote workers (lib/server/lab-door-commands.ts). */
export async function setRemoteWorkersAction(input: unknown) {
  return doors.setRemoteWorkers(input, await credentials());
}
/** Starts again the workers an unwatched shared lab's idle watch stopped. */
export async function startAgainAction(input: unknown) {
  return doors.startAgain(input, await credentials());
}
