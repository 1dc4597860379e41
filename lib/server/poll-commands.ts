import 'server-only';
import type { z } from 'zod';
import { answerPoll, askPoll, readOwnAnswers, revealPoll } from '../../db/polls';
import type { ActionResult } from '../model/core/action-result';
import { FencingError, isFencingError } from '../model/core/errors';
import { labInput } from '../model/lab/lab-inputs';
import type { OwnAnswer } from '../model/poll/poll';
import { answerPollInput, askPollInput, revealPollInput } from '../model/poll/poll-inputs';
import { walkthroughFor } from '../model/walkthrough/walkthrough';
import { type Credentials, isTrainer, ownerHashOf, requireDriver } from './access';
import { labFor } from './lab-commands';

/*
 * Predict, then watch (db/polls.ts): the trainer asks the room of a shared lab a question before a
 * walkthrough step and reveals the answers (showing the step reveals them too: lab-commands.ts);
 * each trainee, a browser known by its owner secret (the cookie its private labs use), answers once
 * and may change their answer until the reveal. A refusal names the field and the rule in words.
 */

function inWords<S extends z.ZodType, T>(
  schema: S,
  command: (input: z.output<S>) => Promise<T>,
): (raw: unknown) => Promise<ActionResult<T>> {
  return async (raw) => {
    const parsed = schema.safeParse(raw);
    // Each message names its field ("choice 2 is empty"): no zod path in front of it.
    if (!parsed.success)
      return {
        ok: false,
        error: { code: 'invalid_input', message: parsed.error.issues[0]?.message ?? 'invalid input' },
      };
    try {
      return { ok: true, data: await command(parsed.data) };
    } catch (error) {
      if (isFencingError(error)) return { ok: false, error: { code: error.code, message: error.message } };
      console.error('[poll] failed:', error);
      return { ok: false, error: { code: 'internal', message: 'the question could not be saved: try again' } };
    }
  };
}

async function sharedLabDrivenBy(id: string, credentials: Credentials) {
  const lab = await labFor(id, credentials);
  requireDriver(lab, credentials);
  if (lab.visibility !== 'shared')
    throw new FencingError('invalid_input', 'questions are for the shared labs, which the room watches');
  return lab;
}

/** The trainer asks the room about walkthrough step `step` (from 0), before it runs. */
export const askRoom = (raw: unknown, credentials: Credentials) =>
  inWords(askPollInput, async ({ lab: id, step, question, choices }) => {
    const lab = await sharedLabDrivenBy(id, credentials);
    const steps = walkthroughFor(lab.kind).length;
    if (step >= steps)
      throw new FencingError(
        'invalid_input',
        `the walkthrough has ${steps} steps: ask about one of steps 2 to ${steps}`,
      );
    return { poll: await askPoll({ lab: lab.id, step, question, choices }) };
  })(raw);

/** The trainer shows the room its answers to the question. */
export const revealAnswers = (raw: unknown, credentials: Credentials) =>
  inWords(revealPollInput, async ({ lab: id, poll }) => {
    const lab = await sharedLabDrivenBy(id, credentials);
    if (!(await revealPoll(lab.id, poll)))
      throw new FencingError(
        'poll_closed',
        'this question is not open: its answers are shown already, or it was closed',
      );
    return { poll };
  })(raw);

/** A trainee's answer. The trainer, who asks, does not answer: it would count as one of the room. */
export const answerQuestion = (raw: unknown, caller: { credentials: Credentials; ownerSecret: string }) =>
  inWords(answerPollInput, async ({ lab: id, poll, choice }) => {
    const lab = await labFor(id, caller.credentials);
    if (isTrainer(caller.credentials))
      throw new FencingError(
        'forbidden',
        'the trainer asks and the room answers: answer from a browser that has not entered the trainer key',
      );
    await answerPoll({ lab: lab.id, poll, ownerHash: ownerHashOf(caller.ownerSecret), choice });
    return { poll, choice };
  })(raw);

/** This browser's answers to the questions of the lab's current run (none without an owner secret). */
export const ownAnswers = (raw: unknown, credentials: Credentials) =>
  inWords(labInput, async ({ lab: id }): Promise<OwnAnswer[]> => {
    const lab = await labFor(id, credentials);
    return credentials.ownerSecret ? readOwnAnswers(lab.id, ownerHashOf(credentials.ownerSecret)) : [];
  })(raw);
