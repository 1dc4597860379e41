import 'server-only';
import type { z } from 'zod';
import type { ActionResult } from '../model/core/action-result';
import { issueInWords } from '../model/core/input-words';
import { errorInWords } from './error-answers';

// The result type is the model's, so that the client components that read it import no server code.
export type { ActionResult };

/**
 * Wraps a server action: the input is parsed with zod first (anything the client sends is
 * untrusted), and errors become a typed result (error-answers.ts): a FencingError's code and words;
 * anything else is logged and answered 'internal'.
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
      return { ok: false, error: errorInWords(error, 'action') };
    }
  };
}
