import 'server-only';
import { FencingError, type FencingErrorCode, isFencingError } from '../model/core/errors';

/*
 * The one place a thrown value becomes what a caller reads: a server action's `{ ok: false, error }`
 * (validated-action.ts) and a route handler's HTTP answer (answeringErrors below). A FencingError is
 * a refusal a person can act on: its code and its words go out as they are. Anything else is the
 * server's own fault: it is logged, and the caller reads only INTERNAL_ERROR, never its message.
 */

/** Each code's HTTP status: a Record, so that a new code without a status fails the type check. */
export const HTTP_STATUS: Record<FencingErrorCode, number> = {
  invalid_input: 400,
  not_found: 404,
  unknown_row: 404,
  forbidden: 403,
  worker_not_joined: 403,
  token_not_granted: 403,
  token_not_issued: 409,
  stale_token_refused: 409,
  poll_closed: 409,
  lab_reset: 409,
  lab_closed: 410,
  limit_reached: 429,
  rate_limited: 429,
  db_unavailable: 503,
};

/** What a caller reads: a FencingError's code and words, or 'internal'. */
export type ErrorInWords = { code: FencingErrorCode | 'internal'; message: string };

/*
 * Only a fault of the server's own lands here (a person's mistake is a FencingError): say so
 * without pointing the person at a log they cannot read.
 */
export const INTERNAL_ERROR: ErrorInWords = {
  code: 'internal',
  message: 'the server failed to do this; try again, or tell the trainer if it keeps failing',
};

/** Any thrown value as the error a caller may read; anything but a FencingError is logged under `where`. */
export function errorInWords(error: unknown, where: string): ErrorInWords {
  if (isFencingError(error)) return { code: error.code, message: error.message };
  console.error(`[${where}] failed:`, error);
  return { ...INTERNAL_ERROR };
}

export function httpStatusOf(code: ErrorInWords['code']): number {
  return code === 'internal' ? 500 : HTTP_STATUS[code];
}

/** A route handler's answer to anything thrown: the status of its code and `{ error: { code, message } }`. */
export function errorResponse(error: unknown, where: string): Response {
  const words = errorInWords(error, where);
  return Response.json(
    { error: words },
    { status: httpStatusOf(words.code), headers: { 'Cache-Control': 'no-store' } },
  );
}

/**
 * A route handler whose throws are answered by errorResponse: the handler throws a FencingError for
 * what it refuses and builds no error body itself. `where` names it in the log.
 */
export function answeringErrors<A extends unknown[]>(
  where: string,
  handler: (...args: A) => Promise<Response>,
): (...args: A) => Promise<Response> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      return errorResponse(error, where);
    }
  };
}

/** A lab the caller may not see, in the words of one that does not exist: someone else's private lab reads exactly so. */
export function noSuchLab(lab: string): FencingError {
  return new FencingError('not_found', `no lab ${JSON.stringify(lab)}`);
}
