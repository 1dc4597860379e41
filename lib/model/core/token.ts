import { FencingError } from './errors';

/**
 * A fencing token: a positive integer from the `write_epoch` sequence. The sequence's MAXVALUE is
 * 2^53 - 1, so every token is exactly a JavaScript number; the brand stops a bare number (a row id,
 * a count) from being passed where a token is expected.
 */
export type Token = number & { readonly __brand: 'Token' };

export const MAX_TOKEN = Number.MAX_SAFE_INTEGER;

/** Reads a token from anything: pg's BIGINT strings, numbers, bigints. Throws `invalid_input`. */
export function parseToken(raw: unknown, what = 'token'): Token {
  const value = toSafeInteger(raw);
  if (value === undefined || value < 1) {
    throw new FencingError(
      'invalid_input',
      `${what} must be a whole number from 1 to ${MAX_TOKEN}, got ${showRaw(raw)}`,
    );
  }
  return value as Token;
}

/**
 * A token handed in by a caller: a number, never text. (pg hands BIGINT over as text, which is
 * what parseToken is for; a caller passing "7" has mixed the two up, and "10" < "9" as text.)
 */
export function requireToken(raw: unknown, what = 'token'): Token {
  if (typeof raw !== 'number') {
    throw new FencingError('invalid_input', `${what} must be a number, got ${typeof raw} ${showRaw(raw)}`);
  }
  return parseToken(raw, what);
}

/** Like parseToken, but 0 is allowed: the `last_token` of a row that was never written. */
export function parseStoredToken(raw: unknown): Token | 0 {
  return toSafeInteger(raw) === 0 ? 0 : parseToken(raw, 'stored token');
}

/**
 * Whether text is a BIGINT as pg writes it: 0, or digits with no leading zero, of any length (past
 * 2^53 too: read it with BigInt, not Number). The one check of that shape; parseToken's adds a length.
 */
export function isBigintText(raw: unknown): raw is string {
  return typeof raw === 'string' && /^(0|[1-9][0-9]*)$/.test(raw);
}

/** Numeric comparison; never compare tokens as text ("10" < "9"). */
export function isNewerThan(candidate: Token, current: Token | 0): boolean {
  return candidate > current;
}

function toSafeInteger(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : undefined;
  if (typeof raw === 'bigint') {
    return raw >= 0n && raw <= BigInt(MAX_TOKEN) ? Number(raw) : undefined;
  }
  if (isBigintText(raw) && raw.length <= 16) {
    const value = Number(raw);
    return Number.isSafeInteger(value) ? value : undefined;
  }
  return undefined;
}

function showRaw(raw: unknown): string {
  if (typeof raw === 'string') return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
  if (typeof raw === 'bigint') return `${raw}n`;
  return String(raw);
}
