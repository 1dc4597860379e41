import 'server-only';
import type { z } from 'zod';
import type { ActionResult } from '../model/action-result';
import { isFencingError } from '../model/errors';

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
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
      return { ok: false, error: { code: 'invalid_input', message: `${where}${issue?.message ?? 'invalid input'}` } };
    }
    try {
      return { ok: true, data: await action(parsed.data) };
    } catch (error) {
      if (isFencingError(error)) return { ok: false, error: { code: error.code, message: error.message } };
      console.error('[action] failed:', error);
      return { ok: false, error: { code: 'internal', message: 'something went wrong on the server; see its log' } };
    }
  };
}
