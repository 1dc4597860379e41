import 'server-only';
import { parse } from 'libpg-query';
import { deparse } from 'pgsql-deparser';
import { type GuardConstants, guardConstants } from '../model/guard/guard-probes';
import { checkGuardTree, type GuardCheck, MAX_GUARD_CHARS } from '../model/guard/guard-statement';

/**
 * A trainee's guard, read by PostgreSQL's own parser (libpg-query: the parser compiled to WASM) and
 * judged by the pure rules of lib/model/guard/guard-statement.ts. What is installed is never the text
 * typed, but the accepted tree deparsed to canonical SQL (comments and all oddities of spelling gone).
 */
export type ParsedGuard =
  | { ok: true; statement: string /** What the attack tries besides its story. */; constants: GuardConstants }
  | Exclude<GuardCheck, { ok: true }>;

export async function parseGuard(text: string): Promise<ParsedGuard> {
  try {
    return await readGuard(text);
  } catch (error) {
    // The parser (or the deparser) failing on a statement is still an answer about that statement:
    // a refusal in words, never an internal error (`$0` made the WASM parser throw a bare SqlError).
    console.warn('[guard] the parser could not read a guard:', error instanceof Error ? error.message : error);
    return {
      ok: false,
      refusal: 'not-allowed',
      reason: "PostgreSQL's parser could not read it (a guard has $1 (value), $2 (token) and $3 (row id) only)",
    };
  }
}

async function readGuard(text: string): Promise<ParsedGuard> {
  if (text.trim() === '') return { ok: false, refusal: 'not-one-statement', reason: 'the guard is empty' };
  if (text.length > MAX_GUARD_CHARS) {
    return { ok: false, refusal: 'not-allowed', reason: `a guard is at most ${MAX_GUARD_CHARS} characters` };
  }
  let tree: unknown;
  try {
    tree = await parse(text);
  } catch (error) {
    // A statement the parser refuses carries where (sqlDetails); anything else is the parser failing on it.
    if (!(error as { sqlDetails?: unknown }).sqlDetails) throw error;
    return { ok: false, refusal: 'not-allowed', reason: `PostgreSQL's parser: ${(error as Error).message}` };
  }
  const checked = checkGuardTree(tree);
  if (!checked.ok) return checked;
  const statement = (await deparse(tree as Parameters<typeof deparse>[0])).trim().replace(/;$/, '');
  // What is installed (and kept) is the canonical text, which can be longer than the text typed.
  if (statement.length > MAX_GUARD_CHARS) {
    return {
      ok: false,
      refusal: 'not-allowed',
      reason: `a guard is at most ${MAX_GUARD_CHARS} characters as PostgreSQL writes it back (its canonical form), and this one is ${statement.length}: shorten it`,
    };
  }
  // The canonical text must say the same as the tree that passed: parsed again, judged again.
  const canonical = await parse(statement);
  const again = checkGuardTree(canonical);
  if (!again.ok) return again;
  return { ok: true, statement, constants: guardConstants(canonical) };
}
