import { clockTime } from '../core/clock-time';
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
  return clockTime(at);
};
/** A database time an event recorded in its detail (a lease's end, a worker's reading of its clock). */
export const detailTime = (e: WireEvent | undefined, key: string) => {
  const at = need(e).detail[key];
  return time(typeof at === 'string' ? at : undefined);
};

/** How token `a` compares with token `b`, computed from the numbers: "newer", "older" or "the same". */
export function compared(a: number | undefined, b: number | undefined): 'newer' | 'older' | 'the same' {
  const [x, y] = [need(a), need(b)];
  return x > y ? 'newer' : x < y ? 'older' : 'the same';
}

/** `newer than`, `older than`, `the same as`: token `a` beside token `b`, computed. */
export function relation(a: number | undefined, b: number | undefined): string {
  const c = compared(a, b);
  return c === 'the same' ? 'the same as' : `${c} than`;
}

/** `a newer`, `an older`, `the same`: token `a` beside token `b`, computed, as an article and adjective. */
export function article(a: number | undefined, b: number | undefined): string {
  const c = compared(a, b);
  return c === 'older' ? 'an older' : c === 'newer' ? 'a newer' : 'the same';
}

/** `1.5 s`, `0.7 s`, `30 s`: a duration in seconds, as the walkthroughs say it. */
export const seconds = (ms: number) => `${Number((ms / 1000).toFixed(ms % 100 === 0 ? 1 : 3))} s`;

/** A worker's settings as its start recorded them (`worker_started`, `worker_restarted`): what it really ran with. */
export type RecordedSettings = {
  leaseTtlMs: number;
  renewEveryMs: number;
  writeEveryMs: number;
  clockSlowPercent?: number;
  /** How often it asks for a lease it does not hold (recorded by workers since issue 34). */
  acquireRetryMs?: number;
};

/** The settings of `actor`'s last start at or before event `upTo` (every start when absent). */
export function settingsOf(
  events: readonly WireEvent[],
  actor: string,
  upTo = Number.POSITIVE_INFINITY,
): WireEvent | undefined {
  return events.findLast(
    (e) => e.actor === actor && e.id <= upTo && (e.kind === 'worker_started' || e.kind === 'worker_restarted'),
  );
}

/** The numbers a start recorded, when it recorded them all (a history pruned of its start has none). */
export function recordedSettings(start: WireEvent | undefined): RecordedSettings | undefined {
  const d = start?.detail ?? {};
  const n = (key: string) => (typeof d[key] === 'number' ? (d[key] as number) : undefined);
  const [leaseTtlMs, renewEveryMs, writeEveryMs] = [n('leaseTtlMs'), n('renewEveryMs'), n('writeEveryMs')];
  if (leaseTtlMs === undefined || renewEveryMs === undefined || writeEveryMs === undefined) return undefined;
  const clockSlowPercent = n('clockSlowPercent');
  const acquireRetryMs = n('acquireRetryMs');
  return {
    leaseTtlMs,
    renewEveryMs,
    writeEveryMs,
    ...(clockSlowPercent === undefined ? {} : { clockSlowPercent }),
    ...(acquireRetryMs === undefined ? {} : { acquireRetryMs }),
  };
}

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
  const b = need(writeB);
  const loss =
    overwritten?.actor === 'B'
      ? `B's value ${write(overwritten)} was lost: A's late write, ${write(lateA)}, overwrote it.`
      : b.id < lateA.id && b.kind === 'write_rejected'
        ? `B's write with token ${t(b.token)} was refused, and A's late write, ${write(lateA)}, was accepted.`
        : `A's late write, ${write(lateA)}, was accepted over ${heldWords(overwritten)}${b.id > lateA.id ? `, before B's write with token ${t(b.token)} reached the row` : ''}.`;
  return `The row holds ${rowWords(now)}${now.by?.id === lateA.id ? ': A’s stale write' : since}. ${loss}`;
}
