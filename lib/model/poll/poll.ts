/*
 * Predict, then watch: a question the trainer asks the room before a walkthrough step runs, as it
 * crosses to the browser and into an exported history. Without zod, for the browser: the inputs
 * are checked in poll-inputs.ts.
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

/** The latest question of the run: the one the pages show. */
export function currentPoll(polls: readonly PollView[] | undefined): PollView | undefined {
  return polls?.at(-1);
}

/** "3 answers", "1 answer", "no answers yet". */
export function answeredWords(count: number): string {
  if (count === 0) return 'no answers yet';
  return count === 1 ? '1 answer' : `${count} answers`;
}
