/*
 * What the attack on a trainee's guard tries beyond its story (issue 22 part 4): the constants the
 * statement itself names. A guard with a backdoor (`… OR $1 = 'let-me-in'`, `… OR $2 = 42`) holds
 * against any story that never sends that value or that token; so the attack's stale writers carry
 * the statement's string constants as their values, and its tokens are staged at, just below and
 * just above each number it names. Pure: it reads the parse tree PostgreSQL's parser made
 * (lib/server/guard-parser.ts), as lib/model/guard/guard-statement.ts does.
 */

import { WORKER_BOUNDS } from '../core/input-bounds';

export type GuardConstants = { values: string[]; tokens: number[] };

/** The stale writers of the attack's pause story, in the order they take the lease: each a token and maybe a value. */
export type StaleWriter = { token: number; value?: string };

/** The story's own stale token: 9, the digit boundary's older side (0033: the lab's tokens start at 9). */
export const STORY_TOKEN = 9;
/** At most this many stale writers: each costs a worker and about a lease's length of the attack. */
export const MAX_STALE_WRITERS = 5;
/** Values as a worker may write them (lib/model/core/input-bounds.ts, the form's and the database's bound). */
export const MAX_PROBE_VALUE_CHARS = WORKER_BOUNDS.write_value_max_chars;
/** Tokens the attack stages: whole, positive, and far from the end of bigint and of JavaScript's exact integers. */
const MAX_PROBE_TOKEN = 2 ** 52;

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every constant in the tree, in the order the statement names them, each once. */
export function guardConstants(tree: unknown): GuardConstants {
  const values: string[] = [];
  const tokens: number[] = [];
  const addToken = (text: string) => {
    if (!/^-?\d{1,19}$/.test(text.trim())) return;
    const n = Number(text.trim());
    if (Number.isSafeInteger(n) && !tokens.includes(n)) tokens.push(n);
  };
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!isNode(value)) return;
    const constant = value.A_Const;
    if (isNode(constant)) {
      if (isNode(constant.sval)) {
        const text = String(constant.sval.sval ?? '');
        if (!values.includes(text)) values.push(text);
        addToken(text);
      }
      if (isNode(constant.ival)) addToken(String(constant.ival.ival ?? 0));
      if (isNode(constant.fval)) addToken(String(constant.fval.fval ?? ''));
      return;
    }
    for (const child of Object.values(value)) visit(child);
  };
  visit(tree);
  return { values, tokens };
}

/**
 * The stale writers for these constants: the story's token 9 first, then each number's neighbours
 * (n, n + 1, n − 1: a backdoor `= n`, `> n` or `< n` opens at one of them), at most
 * MAX_STALE_WRITERS, in the order the lease grants them (tokens only go up). The string constants
 * ride on them in turn, a stale writer added for each one left over while there is room.
 */
export function staleWriters(constants: GuardConstants): StaleWriter[] {
  const tokens: number[] = [STORY_TOKEN];
  for (const n of constants.tokens) {
    for (const token of [n, n + 1, n - 1]) {
      if (tokens.length >= MAX_STALE_WRITERS) break;
      if (token >= 1 && token <= MAX_PROBE_TOKEN && !tokens.includes(token)) tokens.push(token);
    }
  }
  const values = constants.values.filter((v) => v.length >= 1 && v.length <= MAX_PROBE_VALUE_CHARS);
  const top = () => Math.max(...tokens);
  while (tokens.length < Math.min(values.length, MAX_STALE_WRITERS)) tokens.push(top() + 1);
  return tokens
    .sort((a, b) => a - b)
    .map((token, i) => (values[i] === undefined ? { token } : { token, value: values[i] as string }));
}

/** "tokens 9, 41, 42 and 43; the value 'let-me-in'": what the story's stale writers tried, from what they sent. */
export function triedWords(sent: ReadonlyArray<{ token: number; value: string }>, probed: readonly string[]): string {
  const tokens = [...new Set(sent.map((s) => s.token))].sort((a, b) => a - b);
  const values = [...new Set(sent.map((s) => s.value))].filter((v) => probed.includes(v));
  const list = (items: readonly string[]) =>
    items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
  const tokenWords = `${tokens.length === 1 ? 'token' : 'tokens'} ${list(tokens.map(String))}`;
  if (!values.length) return tokenWords;
  const quoted = values.map((v) => `'${v.replaceAll("'", "''")}'`);
  return `${tokenWords}; ${values.length === 1 ? 'the value' : 'the values'} ${list(quoted)}`;
}

type StoryEvent = {
  id: number;
  actor: string;
  kind: string;
  token?: number | undefined;
  detail: Record<string, unknown>;
};

/** The write each frozen writer sent when it woke (its first after its pause ended), as recorded. */
export function lateWrites(events: readonly StoryEvent[]): Array<{ token: number; value: string }> {
  const woke = new Map<string, number>();
  const sent: Array<{ token: number; value: string }> = [];
  for (const event of [...events].sort((a, b) => a.id - b.id)) {
    if (event.kind === 'pause_ended') woke.set(event.actor, event.id);
    const isWrite = event.kind === 'write_accepted' || event.kind === 'write_rejected';
    if (isWrite && woke.has(event.actor) && event.token !== undefined) {
      woke.delete(event.actor);
      sent.push({ token: event.token, value: String(event.detail.value ?? '') });
    }
  }
  return sent;
}

/**
 * One exploration of a guard's small story (issue 35 part 5): its grants' first token (the next ones
 * follow it: 9, 10, …) and, when a constant of the statement, the value every write carries.
 */
export type ExploreSetting = { firstToken: number; value?: string };

/** At most this many explorations per attack: each is a few tenths of a second on the database. */
export const MAX_EXPLORE_SETTINGS = 10;

/**
 * The settings the exhaustive part explores, so that the explorer alone finds a backdoor: the story's
 * (grants from 9, across the digit boundary), then grants from each number the statement names and
 * from its neighbours (a stale holder then presents n − 1, n or n + 1 under a newer token: `< n`,
 * `= n`, `> n` each open at one of them), then each string constant as every write's value.
 */
export function exploreSettings(constants: GuardConstants, holders: number): ExploreSetting[] {
  const byToken: ExploreSetting[] = [];
  const seen = new Set([STORY_TOKEN]);
  for (const n of constants.tokens) {
    for (const first of [n - 1, n, n + 1]) {
      if (first >= 1 && first + holders - 1 <= MAX_PROBE_TOKEN && !seen.has(first)) {
        seen.add(first);
        byToken.push({ firstToken: first });
      }
    }
  }
  const byValue = constants.values
    .filter((value) => value.length >= 1 && value.length <= MAX_PROBE_VALUE_CHARS)
    .map((value) => ({ firstToken: STORY_TOKEN, value }));
  // Past the bound, numbers and strings share it: each number's three, then a string, in turn, so
  // that many numbers never crowd out every string (nor the reverse).
  const settings: ExploreSetting[] = [{ firstToken: STORY_TOKEN }];
  while (settings.length < MAX_EXPLORE_SETTINGS && (byToken.length || byValue.length)) {
    settings.push(...byToken.splice(0, 3));
    const value = byValue.shift();
    if (value) settings.push(value);
  }
  return settings.slice(0, MAX_EXPLORE_SETTINGS);
}

/** "grants from 41, 42 and 43; the value 'let-me-in'": what the explorations beyond the story's tried. */
export function settingsWords(settings: readonly ExploreSetting[]): string {
  const extra = settings.slice(1);
  const firsts = [...new Set(extra.filter((s) => s.value === undefined).map((s) => s.firstToken))];
  const values = extra.flatMap((s) => (s.value === undefined ? [] : [s.value]));
  const list = (items: readonly string[]) =>
    items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
  const parts = [
    ...(firsts.length ? [`grants from ${list(firsts.map(String))}`] : []),
    ...(values.length
      ? [
          `${values.length === 1 ? 'the value' : 'the values'} ${list(values.map((v) => `'${v.replaceAll("'", "''")}'`))}`,
        ]
      : []),
  ];
  return parts.join('; ');
}
