import 'server-only';
import type { z } from 'zod';
import type { ActionResult } from '../model/core/action-result';
import { isFencingError } from '../model/core/errors';
import { issueInWords } from '../model/core/input-words';

// The result type is the model's, so that the client components that read it import no server code.
export type { ActionResult };

/**
 * Wraps a server action: the input is parsed with zod first (anything the client sends is
 * untrusted), and errors become a typed result. Database details are logged, not returned.
 */
export function validatedAction<S extends z.ZodType, T>(
  schema: S,
  action: (input: z.output<S>) => Promise<T>,
): (input: unknown) => Promise<ActionResult<T>> {
  return async (raw) => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      return { ok: false, error: { code: 'invalid_input', message: issueInWords(parsed.error.issues[0]) } };
    }
    try {
      return { ok: true, data: await action(parsed.data) };
    } catch (error) {
      if (isFencingError(error)) return { ok: false, error: { code: error.code, message: error.message } };
      console.error('[action] failed:', error);
      // Only a fault of the server's own lands here (a person's mistake is a FencingError): say so
      // without pointing the person at a log they cannot read.
      return {
        ok: false,
        error: {
          code: 'internal',
          message: 'the server failed to do this; try again, or tell the trainer if it keeps failing',
        },
      };
    }
  };
}
