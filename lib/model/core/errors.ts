/**
 * What went wrong, as a caller can branch on it. Messages are safe to show to a user. Each code has
 * its HTTP status in lib/server/error-answers.ts (a new code without one fails the type check).
 */
export type FencingErrorCode =
  | 'invalid_input'
  /** Nothing by that name: a lab, a soak report. Someone else's private lab is answered exactly like a missing one. */
  | 'not_found'
  | 'unknown_row'
  | 'token_not_issued'
  | 'stale_token_refused'
  | 'db_unavailable'
  /** The caller may watch this lab but not drive it (no trainer key, or someone else's private lab). */
  | 'forbidden'
  /** A server-wide limit (labs, workers) is reached. */
  | 'limit_reached'
  /** Too many requests of one kind from one client address: wait, then try again. */
  | 'rate_limited'
  /** The lab was closed (idle too long); its history stays for replay. */
  | 'lab_closed'
  /** A question to the room that takes no more answers: revealed, or closed by a newer one. */
  | 'poll_closed'
  /** The lab was reset since this worker joined it: the database refuses its leases, writes and events. */
  | 'lab_reset'
  /** A worker call that is not from a worker of the lab's current run (another name, instance or lab). */
  | 'worker_not_joined'
  /** A token that was not granted for the lease of the lab whose row it tries to write. */
  | 'token_not_granted';

/*
 * The brand, not the class, tells a FencingError: Next bundles this module more than once (the
 * instrumentation hook that made the supervisor, the actions that call it), so an error thrown by
 * one copy's class fails `instanceof` against another's, and a person's mistake was answered as
 * "internal" after a restart.
 */
const BRAND = Symbol.for('fencing-lab.FencingError');

export class FencingError extends Error {
  readonly code: FencingErrorCode;
  readonly [BRAND] = true;

  constructor(code: FencingErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'FencingError';
    this.code = code;
  }

  static unreachable(cause: unknown): FencingError {
    const reason = cause instanceof Error && cause.message ? cause.message : String(cause);
    return new FencingError('db_unavailable', `no database reachable (${reason})`, { cause });
  }
}

export function isFencingError(error: unknown, code?: FencingErrorCode): error is FencingError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [BRAND]?: unknown })[BRAND] === true &&
    (code === undefined || (error as FencingError).code === code)
  );
}

/**
 * A command line's mistake (an unknown option, a value out of its bounds), in words for the person who
 * typed it: every command (`npm run worker`, `scenario`, `explore`, `soak`, `bench`) prints its usage
 * with the words and exits 2. The one class for all of them (issue 37).
 */
export class UsageError extends Error {
  override name = 'UsageError';
}
