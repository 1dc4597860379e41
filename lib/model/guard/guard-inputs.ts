import { z } from 'zod';
import { PRIVATE_LAB_ID_PATTERN } from '../lab/lab-instance';
import { MAX_GUARD_CHARS } from './guard-statement';

/** What a trainee submits in a your-guard lab: the lab, the name the wall shows, and the statement. */

const GUARD_NAME_MAX_CHARS = 40;

export const submitGuardInput = z
  .object({
    lab: z.string({ error: 'lab must be a lab id' }).regex(PRIVATE_LAB_ID_PATTERN, "lab must be a private lab's id"),
    name: z
      .string({ error: 'name must be text' })
      .trim()
      .min(1, 'enter the name the class wall shows')
      .max(GUARD_NAME_MAX_CHARS, `a name is at most ${GUARD_NAME_MAX_CHARS} characters`)
      .regex(/^[\p{L}\p{N} _.'-]+$/u, "a name holds letters, digits, spaces and _ . ' - only"),
    statement: z
      .string({ error: 'the guard must be text' })
      .min(1, 'write the UPDATE that guards the row')
      .max(MAX_GUARD_CHARS, `a guard is at most ${MAX_GUARD_CHARS} characters`),
  })
  .strict();

/** An attempt by its id, as a link names it. */
export const guardAttemptIdSchema = z.coerce
  .number({ error: 'an attempt is a number' })
  .int('an attempt is a whole number')
  .positive('an attempt is a positive number')
  .max(Number.MAX_SAFE_INTEGER, 'an attempt number is too large');

/** A submitted attempt the editor asks after while it waits in line or is attacked. */
export const guardAttemptInput = z
  .object({
    lab: z.string({ error: 'lab must be a lab id' }).regex(PRIVATE_LAB_ID_PATTERN, "lab must be a private lab's id"),
    attempt: guardAttemptIdSchema,
  })
  .strict();

/** Which lab's last guard the editor asks for. */
export const lastGuardInput = z
  .object({
    lab: z.string({ error: 'lab must be a lab id' }).regex(PRIVATE_LAB_ID_PATTERN, "lab must be a private lab's id"),
  })
  .strict();

/** How the guard the row has now fared: its last attack's outcome, or none installed yet. */
export type GuardStanding = 'passed' | 'violation' | 'none';

/**
 * The editor's start: the trainee's last name and statement in this lab and that attempt's verdict
 * (absent before the first), and how the guard the row has now fared.
 */
export type LastGuard = { last?: { name: string; statement: string; result: GuardResult }; standing: GuardStanding };

/**
 * An attempt's state: waiting in the job queue or being attacked (`queued`, with `queue`), its verdict
 * (`passed`, `violation`), refused before it ran (`refused`), or an attack that could not finish
 * (`failed`, in words).
 */
export type GuardOutcome = 'queued' | 'passed' | 'violation' | 'refused' | 'failed';

/** Where a queued attempt stands, read from the queue when it was asked (lib/model/guard/guard-queue.ts). */
export type GuardQueuePlace = {
  /** 1 = the next to run; 0 = being attacked now. */
  place: number;
  /** Seconds until its verdict, estimated from recent attacks' times and the room's free slots. */
  estimateSeconds: number;
};

/** What a submission returns to the trainee's page, and what the editor reads while it waits. */
export type GuardResult = {
  attemptId: number;
  outcome: GuardOutcome;
  /** The verdict in one sentence, why the guard was refused, or (queued) "3rd in line, about 20 s". */
  headline: string;
  /** Only while queued. */
  queue?: GuardQueuePlace;
  detail?: string;
  /** The canonical statement that ran, or the text refused. */
  statement: string;
  hasCounterexample: boolean;
};
