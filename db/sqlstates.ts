import type { FencingErrorCode } from '../lib/model/core/errors';

/*
 * Each SQLSTATE our own functions raise (db/functions: `USING ERRCODE = 'FL…'`, and PostgreSQL's
 * 22023 where they use it for a bad argument), and what it means to a caller: one place (issue 37),
 * read by toFencingError (db/pool.ts). lib/testing/sqlstates.test.ts fails when a function raises a
 * code that is not here, or one here is raised by none.
 */
export const SQLSTATE_MEANINGS = {
  /** A value outside a function's bounds (a value too long, a rate, an attempt kind). */
  '22023': 'invalid_input',
  /** A write whose token is older than the row's, refused by the row's own trigger. */
  FL001: 'stale_token_refused',
  /** A token the write_epoch sequence never issued. */
  FL003: 'token_not_issued',
  /** A worker from before a reset (lab_generation_current). */
  FL007: 'lab_reset',
  /** No running worker with that instance in the lab. */
  FL008: 'worker_not_joined',
  /** A token that was not granted to the worker that presents it. */
  FL009: 'token_not_granted',
  /** A request a lab's kind or state does not take. */
  FL010: 'invalid_input',
  FL011: 'invalid_input',
  /** A worker recorded too many events, or took too many leases, too fast. */
  FL012: 'rate_limited',
  /** No worker line left to issue. */
  FL030: 'limit_reached',
  /** A worker line whose holder changed its settings. */
  FL031: 'invalid_input',
  /** A question to the room: none such, closed, answered, or full. */
  FLP01: 'invalid_input',
  FLP02: 'poll_closed',
  FLP03: 'poll_closed',
  FLP04: 'limit_reached',
  /** PostgreSQL refused a trainee's guard statement when it was installed. */
  FLG01: 'invalid_input',
  /** A trainee's share of guard attacks or refusals used up (its detail says by whom and until when). */
  FLG02: 'rate_limited',
} as const satisfies Record<string, FencingErrorCode>;

export type OurSqlstate = keyof typeof SQLSTATE_MEANINGS;

/**
 * Raised by our functions, yet meaning nothing to a caller: refusals of what no code path does (met,
 * they are a bug, answered as internal), a code raised and caught in one function, and PostgreSQL's
 * own 42501 where a role may not do a thing.
 */
export const SQLSTATES_NOT_FOR_CALLERS = ['FL002', 'FL004', 'FL006', 'FLG00', '42501'] as const;

/** The SQLSTATE of an error, or of the error it wraps (a transaction helper's, a file's). */
export function sqlstateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof cause === 'string' ? cause : undefined;
}

/** Whether `error` (or the error it wraps) is one of ours, and which. */
export function ourSqlstate(error: unknown): OurSqlstate | undefined {
  const code = sqlstateOf(error);
  return code !== undefined && Object.hasOwn(SQLSTATE_MEANINGS, code) ? (code as OurSqlstate) : undefined;
}
