import type { FinalRow, Rule } from '../model/checker/checker';
import type { WireEvent } from '../model/core/wire';

/*
 * A brute-force oracle for the history checker (lib/model/checker/checker.ts): each rule as docs/checker.md words
 * it, checked by looking back over every earlier event, with no index, no fence and nothing folded
 * in. Quadratic, so only for the small random histories of checker-oracle.test.ts. It answers which
 * rules a history breaks, not the messages.
 */

type Lease = { id: number; token: number; endsAt?: number };

const rowKey = (e: WireEvent) => (e.rowId === undefined ? e.lab : `${e.lab}#${e.rowId}`);
const writtenValue = (e: WireEvent) => {
  const value = e.detail.value;
  return typeof value === 'string' ? value : value === undefined ? '' : String(value);
};
const expiresAt = (e: WireEvent): number | undefined => {
  const ms = typeof e.detail.expiresAt === 'string' ? Date.parse(e.detail.expiresAt) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
};
/** Events the checker reads: those with a token (an event without one fences nothing). */
const tokened = (events: readonly WireEvent[]) =>
  [...events].sort((a, b) => a.id - b.id).filter((e) => e.token !== undefined);

/** A lease that came later: a newer token, or the same token granted again later. */
export const laterLease = (a: Lease, b: Lease) => a.token > b.token || (a.token === b.token && a.id > b.id);

/**
 * The lease a write was made under, from the events before it: the writer's latest grant of the
 * write's token in its lab, else its latest grant; its end is that grant's, moved by the writer's
 * renewals of that token before the write. Undefined: the writer was never granted a lease.
 */
export function leaseOf(history: readonly WireEvent[], write: WireEvent): Lease | undefined {
  const before = history.filter((e) => e.id < write.id && e.lab === write.lab && e.actor === write.actor);
  const grants = before.filter((e) => e.kind === 'lease_acquired');
  const grant = grants.filter((e) => e.token === write.token).at(-1) ?? grants.at(-1);
  if (!grant) return undefined;
  let endsAt = expiresAt(grant);
  for (const renewal of before) {
    if (renewal.kind !== 'lease_renewed' || renewal.id < grant.id || renewal.token !== grant.token) continue;
    // A renewal after a later grant of the same token renews that one, not this.
    const regranted = grants.some((g) => g.token === grant.token && g.id > grant.id && g.id < renewal.id);
    const end = expiresAt(renewal);
    if (!regranted && end !== undefined) endsAt = end;
  }
  return { id: grant.id, token: grant.token as number, ...(endsAt === undefined ? {} : { endsAt }) };
}

/** Whether `write` overwrote, on its row, a value written by another holder under a later lease. */
export function superseded(history: readonly WireEvent[], write: WireEvent): boolean {
  const lease = leaseOf(history, write);
  if (!lease) return false;
  return history.some((earlier) => {
    if (earlier.id >= write.id || earlier.kind !== 'write_accepted' || rowKey(earlier) !== rowKey(write)) return false;
    if (earlier.actor === write.actor) return false;
    const theirs = leaseOf(history, earlier);
    return theirs !== undefined && laterLease(theirs, lease);
  });
}

/** The rules a history breaks, by brute force. */
export function oracleRules(events: readonly WireEvent[], finalRow?: FinalRow): Set<Rule> {
  const history = tokened(events);
  const broken = new Set<Rule>();
  const writes = history.filter((e) => e.kind === 'write_accepted');
  for (const e of history) {
    if (e.kind === 'write_rejected' && e.storedToken !== undefined && (e.token as number) > e.storedToken) {
      broken.add('newer-token-rejected');
    }
    if (
      e.kind === 'lease_acquired' &&
      history.some((g) => g.id < e.id && g.kind === 'lease_acquired' && g.lab === e.lab && g.token === e.token)
    ) {
      broken.add('token-granted-twice');
    }
  }
  for (const w of writes) {
    if (writes.some((v) => v.id < w.id && rowKey(v) === rowKey(w) && (v.token as number) > (w.token as number))) {
      broken.add('token-went-back');
    }
    // Never granted, or writing after a newer holder wrote. A token that is not its own lease's (a
    // per-process counter) breaks nothing by itself: only once such a write loses a newer value.
    if (!leaseOf(history, w) || superseded(history, w)) broken.add('superseded-holder');
  }
  const last = writes.at(-1);
  if (finalRow && last && (finalRow.value !== writtenValue(last) || finalRow.lastToken !== last.token)) {
    broken.add('final-state');
  }
  return broken;
}

/** When a write was made after its lease's end by the database's clock (undefined: no known end). */
export function msAfterLease(events: readonly WireEvent[], write: WireEvent): number | undefined {
  const endsAt = leaseOf(tokened(events), write)?.endsAt;
  return endsAt === undefined || write.at <= endsAt ? undefined : write.at - endsAt;
}
