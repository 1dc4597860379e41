import { z } from 'zod';
import { labIdSchema } from '../lab/lab-inputs';
import { POLL_CHOICE_MAX_CHARS, POLL_CHOICES, POLL_QUESTION_MAX_CHARS } from './poll';

/*
 * What a browser may send about the room's questions (lib/model/poll/poll.ts), checked with zod in words a
 * person can act on: each message names its field and the rule ("choice 2 is empty").
 */

const pollId = z
  .number({ error: 'the question must be named by its number' })
  .int('the question must be named by a whole number')
  .positive('the question must be named by a number from 1')
  .max(Number.MAX_SAFE_INTEGER, 'the question must be named by its number');

const questionText = z
  .string({ error: 'the question must be text' })
  .trim()
  .min(1, 'the question is empty: type what the room should predict')
  .max(POLL_QUESTION_MAX_CHARS, `the question is too long: at most ${POLL_QUESTION_MAX_CHARS} characters`);

const choiceList = z
  .array(z.string({ error: 'each choice must be text' }), { error: 'the choices must be a list' })
  .transform((choices) => choices.map((choice) => choice.trim()))
  .superRefine((choices, ctx) => {
    const issue = choiceProblem(choices);
    if (issue) ctx.addIssue({ code: 'custom', message: issue });
  });

function choiceProblem(choices: readonly string[]): string | undefined {
  if (choices.length < POLL_CHOICES.min || choices.length > POLL_CHOICES.max)
    return `a question needs ${POLL_CHOICES.min} to ${POLL_CHOICES.max} choices, not ${choices.length}`;
  for (const [i, choice] of choices.entries()) {
    if (choice.length === 0) return `choice ${i + 1} is empty: type it, or remove it`;
    if (choice.length > POLL_CHOICE_MAX_CHARS)
      return `choice ${i + 1} is too long: at most ${POLL_CHOICE_MAX_CHARS} characters`;
    const same = choices.findIndex((other) => other.toLowerCase() === choice.toLowerCase());
    if (same < i) return `choices ${same + 1} and ${i + 1} say the same thing: make them differ`;
  }
  return undefined;
}

/** The trainer asks the room (the server checks the step against the lab's walkthrough). */
export const askPollInput = z.strictObject({
  lab: labIdSchema,
  step: z
    .number({ error: 'the step must be a number' })
    .int('the step must be a whole number')
    .min(1, 'a question is about a step after the first (the first resets the lab)')
    .max(99, 'the step must be below 100'),
  question: questionText,
  choices: choiceList,
});

/** A trainee's answer: one of the question's choices, from 0. */
export const answerPollInput = z.strictObject({
  lab: labIdSchema,
  poll: pollId,
  choice: z
    .number({ error: 'the answer must be one of the choices' })
    .int('the answer must be one of the choices')
    .min(0, 'the answer must be one of the choices')
    .max(POLL_CHOICES.max - 1, 'the answer must be one of the choices'),
});

/** The trainer shows the room its answers. */
export const revealPollInput = z.strictObject({ lab: labIdSchema, poll: pollId });
