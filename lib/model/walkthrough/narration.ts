import type { WireEvent } from '../core/wire';

/*
 * The walkthroughs' words for tokens, values, rows and database times, read from recorded events
 * and the row as the database has it (pure). A fact that is not recorded yet is never printed as
 * a placeholder: `need` throws `NotRecordedYet`, and the step says what it is waiting for instead.
 */

export const isOutcome = (e: WireEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

/** The lab's row as the database has it now (the live snapshot's), when the page knows it. */
export type RowNow = { value: string; lastToken: number };

export class NotRecordedYet extends Error {}

export function need<T>(fact: T | undefined): T {
  if (fact === undefined) throw new NotRecordedYet();
  return fact;
}

export const t = (n: number | undefined) => String(need(n));
export const value = (e: WireEvent | undefined) => JSON.stringify(need(need(e).detail.value));
export const time = (ms: number | string | undefined) => {
  const at = typeof need(ms) === 'string' ? Date.parse(ms as string) : (ms as number);
  return new Date(at).toISOString().slice(11, 23);
};
/** A database time an event recorded in its detail (a lease's end, a worker's reading of its clock). */
export const detailTime = (e: WireEvent | undefined, key: string) => {
  const at = need(e).detail[key];
  return time(typeof at === 'string' ? at : undefined);
};

/** `"A-2" with token 9`: a write as it was sent, with the token it carried. */
export const write = (e: WireEvent | undefined) => `${value(e)} with token ${t(need(e).token)}`;

/** `"B-1" (token 11)`: what the row held, or that it held its value from the reset. */
export const heldWords = (e: WireEvent | undefined) =>
  e ? `${value(e)} (token ${t(e.token)})` : 'its value from the reset';

/** The last accepted write before `e`: what the row held when `e` reached it. */
export function rowBefore(writes: readonly WireEvent[], e: WireEvent): WireEvent | undefined {
  return writes.filter((w) => w.kind === 'write_accepted' && w.id < e.id).at(-1);
}

/**
 * The row now: the database's (the snapshot) when the page has it, else as the events have it (the
 * last accepted write). `by` is the accepted write that put the value there, when it is recorded.
 */
export function rowNow(writes: readonly WireEvent[], row: RowNow | undefined) {
  const accepted = writes.filter((w) => w.kind === 'write_accepted');
  const last = accepted.at(-1);
  const now = row ?? (last && { value: String(last.detail.value), lastToken: need(last.token) });
  const shown = need(now);
  const by = accepted.findLast((w) => w.detail.value === shown.value && w.token === shown.lastToken);
  return { ...shown, by };
}

/** `B's value "B-2" with token 12`, or the value and token alone when the write is not in the events yet. */
export function rowWords(now: ReturnType<typeof rowNow>): string {
  const what = `${JSON.stringify(now.value)} with token ${now.lastToken}`;
  return now.by ? `${now.by.actor}'s value ${what}` : what;
}

/** How a write ended, in words that stay true: "accepted", or "rejected as stale, because the row held token 11". */
export function outcomeWords(e: WireEvent): string {
  return e.kind === 'write_accepted' ? 'accepted' : `rejected as stale, because the row held token ${t(e.storedToken)}`;
}

/**
 * The last step's words on the row: what it holds now (written by A's late write, or since), and
 * what became of the late write and of B's value. True at any moment after, as B goes on writing.
 */
export function rowAtTheEnd(
  writes: readonly WireEvent[],
  late: WireEvent | undefined,
  writeB: WireEvent | undefined,
  row: RowNow | undefined,
): string {
  const lateA = need(late);
  const now = rowNow(writes, row);
  const since = now.by && now.by.id > lateA.id ? ', written after A’s late write' : '';
  if (lateA.kind === 'write_rejected')
    return `The row holds ${rowWords(now)}${since}. A's late write, ${write(lateA)}, changed nothing: the row refused it.`;
  const overwritten = rowBefore(writes, lateA);
  const loss =
    overwritten?.actor === 'B'
      ? `B's value ${write(overwritten)} was lost: A's late write, ${write(lateA)}, overwrote it.`
      : `B's write with token ${t(need(writeB).token)} was refused, and A's late write, ${write(lateA)}, was accepted.`;
  return `The row holds ${rowWords(now)}${now.by?.id === lateA.id ? ': A’s stale write' : since}. ${loss}`;
}
