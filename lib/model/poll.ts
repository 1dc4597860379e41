import { z } from 'zod';
import { labIdSchema } from './lab-inputs';

/*
 * Predict, then watch: a question the trainer asks the room before a walkthrough step runs, as it
 * crosses to the browser and into an exported history, and the inputs that ask, answer and reveal
 * it, checked with zod in words a person can act on (each message names its field).
 */

export const POLL_QUESTION_MAX_CHARS = 200;
export const POLL_CHOICE_MAX_CHARS = 60;
export const POLL_CHOICES = { min: 2, max: 4 } as const;
export const POLL_STATES = ['open', 'revealed', 'closed'] as const;
export type PollState = (typeof POLL_STATES)[number];

/** A question of the lab's current run, as every page of the lab may see it. */
export type PollView = {
  id: number;
  /** The walkthrough step (from 0) it is about: showing that step reveals the answers. */
  step: number;
  question: string;
  choices: string[];
  state: PollState;
  /** How many trainees answered (the trainer's page counts them as they come). */
  answered: number;
  /** Database time it was asked (ms since the epoch). */
  askedAt: number;
  /** Answers per choice, in the choices' order: only once revealed, so no page shows them before the trainer does. */
  tallies?: number[];
};

/** This browser's own answer (choice from 0) to a question. */
export type OwnAnswer = { poll: number; choice: number };

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

/** The latest question of the run: the one the pages show. */
export function currentPoll(polls: readonly PollView[] | undefined): PollView | undefined {
  return polls?.at(-1);
}

/** "3 answers", "1 answer", "no answers yet". */
export function answeredWords(count: number): string {
  if (count === 0) return 'no answers yet';
  return count === 1 ? '1 answer' : `${count} answers`;
}
