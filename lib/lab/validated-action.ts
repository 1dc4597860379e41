import 'server-only';
import type { z } from 'zod';
import { isFencingError } from '../model/errors';

/** What every server action returns: the data, or an error a person can read. Never throws. */
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: { code: string; message: string } };

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
