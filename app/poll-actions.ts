'use server';

import { ownerSecretOfThisBrowser } from '@/lib/server/owner-secret';
import * as polls from '@/lib/server/poll-commands';
import { readCredentials } from '@/lib/server/request-credentials';

/*
 * Predict, then watch: the room's questions (lib/server/poll-commands.ts). The caller's credentials
 * come from its cookies, never from the input.
 */

export async function askRoomAction(input: unknown) {
  return polls.askRoom(input, await readCredentials());
}
export async function revealAnswersAction(input: unknown) {
  return polls.revealAnswers(input, await readCredentials());
}
/** A trainee's answer: a browser without an owner secret is given one first (it is who answered). */
export async function answerQuestionAction(input: unknown) {
  const ownerSecret = await ownerSecretOfThisBrowser();
  return polls.answerQuestion(input, { credentials: await readCredentials(), ownerSecret });
}
export async function ownAnswersAction(input: unknown) {
  return polls.ownAnswers(input, await readCredentials());
}
