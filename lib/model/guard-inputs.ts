import { z } from 'zod';
import { MAX_GUARD_CHARS } from './guard-statement';
import { PRIVATE_LAB_ID_PATTERN } from './lab-instance';

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

/** What a submission returns to the trainee's page. */
export type GuardResult = {
  attemptId: number;
  outcome: 'passed' | 'violation' | 'refused';
  /** The verdict in one sentence, or why the guard was refused before it ran. */
  headline: string;
  detail?: string;
  /** The canonical statement that ran, or the text refused. */
  statement: string;
  hasCounterexample: boolean;
};
