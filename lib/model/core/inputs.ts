import { z } from 'zod';
import { FencingError } from './errors';
import { WORKER_BOUNDS } from './input-bounds';
import { issueInWords } from './input-words';

/** The server's own holders (the failover lab's, 800 ms) take shorter leases than a worker may ask for. */
const LEASE_TTL_MIN_MS = 100;
/** No lease is longer than the Start form's, the worker's functions' bound (lib/model/core/input-bounds.ts). */
const LEASE_TTL_MAX_MS = WORKER_BOUNDS.lease_ttl_ms_max;
const NAME_MAX_CHARS = 100;
const VALUE_MAX_CHARS = 10_000;
const ROW_ID_MAX = 2_147_483_647;

const name = (what: string) =>
  z
    .string({ error: `${what} must be text` })
    .trim()
    .min(1, `${what} must not be empty`)
    .max(NAME_MAX_CHARS, `${what} must be at most ${NAME_MAX_CHARS} characters`);

export const holderSchema = name('holder');
export const resourceSchema = name('resource');

export const leaseTtlMsSchema = z
  .number({ error: 'lease TTL must be a number of milliseconds' })
  .int('lease TTL must be a whole number of milliseconds')
  .min(LEASE_TTL_MIN_MS, `lease TTL must be at least ${LEASE_TTL_MIN_MS} ms`)
  .max(LEASE_TTL_MAX_MS, `lease TTL must be at most ${LEASE_TTL_MAX_MS} ms`);

export const rowIdSchema = z
  .number({ error: 'row id must be a number' })
  .int('row id must be a whole number')
  .min(1, 'row id must be at least 1')
  .max(ROW_ID_MAX, `row id must be at most ${ROW_ID_MAX}`);

export const rowValueSchema = z
  .string({ error: 'value must be text' })
  .max(VALUE_MAX_CHARS, `value must be at most ${VALUE_MAX_CHARS} characters`);

/** Parses with a schema or throws `invalid_input` carrying the first problem, in words. */
export function parseInput<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new FencingError('invalid_input', issueInWords(parsed.error.issues[0]));
  }
  return parsed.data;
}
