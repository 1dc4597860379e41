import type { WireEvent } from '../core/wire';
import { judgePromotion, staleAfterLoss } from './checker-failover';
import {
  adding,
  clockOf,
  type Finding,
  type Grant,
  ofWrite,
  single,
  type Violation,
  type Write,
} from './checker-violations';

/*
 * The history checker: a pure function of the event log that says whether the fencing-token
 * pattern held, and if not, which events prove it. It only trusts what the database recorded
 * (id order is commit order, `at` is the database's clock), never what a worker believed.
 *
 * A lost update is one violation, whatever rules the write that made it broke (checker-violations.ts),
 * and a violation is named only once the events that make it are recorded: a write is judged by what
 * it lost, not by how its token was made (a per-process counter's writes are fine until one lands
 * after a newer holder's).
 *
 * Every rule is checked within one lab: the labs run side by side, and the token-as-text lab
 * draws its tokens from a sequence of its own (restarted on reset), so tokens from two labs
 * say nothing about each other. Nothing is remembered between calls either (a checker made by
 * `createHistoryChecker` remembers only the log it was fed).
 */

export type { Finding, Grant, Rule, Violation, Write } from './checker-violations';
export { clockOf } from './checker-violations';

export type Verdict = { ok: boolean; violations: Violation[]; checked: { writes: number; grants: number } };

/** The row as it is in the database now (the snapshot's `row`). */
export type FinalRow = { value: string; lastToken: number };

/** A lab's grants, indexed so that a long history is checked in linear time. */
type LabGrants = { byToken: Map<number, Grant>; byActor: Map<string, { latest: Grant; byToken: Map<number, Grant> }> };
/** A holder's accepted write under its newest lease so far on a row: it fenced out every older lease. */
type Fence = { write: Write; lease: Grant };

const expiresAtOf = (event: WireEvent): number | undefined => {
  const raw = event.detail.expiresAt;
  const ms = typeof raw === 'string' ? Date.parse(raw) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
};

/** Whether lease `a` came after lease `b`: a newer token, or the same token granted again later. */
const laterLease = (a: Grant, b: Grant): boolean => a.token > b.token || (a.token === b.token && a.id > b.id);

const writtenValue = (event: WireEvent): string => {
  const value = event.detail.value;
  return typeof value === 'string' ? value : value === undefined ? '' : String(value);
};

/** Checks a history (events of one or more labs, in id order). `finalRow` is the row as it ended. */
export function checkHistory(events: readonly WireEvent[], finalRow?: FinalRow): Verdict {
  const checker = createHistoryChecker();
  // Id order is commit order; sort a copy so a log assembled out of order is still judged right.
  checker.append([...events].sort((a, b) => a.id - b.id));
  return checker.verdict(finalRow);
}

/**
 * The checker, fed as the log grows: `append` checks only the new events (in id order, after those
 * already checked), so that a history of 200,000 events is not judged again from its start at every
 * new event. What `verdict` and `flagged` hand out is never changed afterwards.
 */
export type HistoryChecker = {
  /** Checks `events[from, to)`, which follow (in id order) every event checked so far. */
  append(events: readonly WireEvent[], from?: number, to?: number): void;
  verdict(finalRow?: FinalRow): Verdict;
  /** The ids of the events that a violation names (the timeline marks them). */
  flagged(): ReadonlySet<number>;
};

export function createHistoryChecker(): HistoryChecker {
  const violations: Violation[] = [];
  /** Where each write's violation is in `violations` (write id → index), for the final row to join it. */
  const violationOfWrite = new Map<number, number>();
  /** Where each failover-lost write's violation is (write id → index), for a stale write it let through. */
  const violationOfLoss = new Map<number, number>();
  const grantsByLab = new Map<string, LabGrants>();
  const lastWriteByRow = new Map<string, Write>();
  /**
   * Per row, each writer's fence. Kept per writer, not only the newest of all: a holder that wrote
   * under a newer lease of its own and then under an old one (overwriting another holder's newer
   * write between them) was superseded by that other holder, whose fence the newest would hide.
   */
  const fencesByRow = new Map<string, Map<string, Fence>>();
  /** The last grant of each lock (lab and resource), for a promotion that lost it. */
  const lastGrantByResource = new Map<string, Grant & { resource: string }>();
  /** Rows whose newest acknowledged write a promoted standby did not have (rowKey → that write). */
  const lostInFailover = new Map<string, Write>();
  let lastWrite: Write | undefined;
  /**
   * Each writer's last `write_sent` per attempt (a client's retry of a write is sent again, and told
   * apart by `detail.attempt`): when it sent what the database later received.
   */
  const sentByActor = new Map<string, { id: number; at: number; token: number; value: string }>();
  const attemptOf = (event: WireEvent) => (event.detail.attempt === 'retry' ? 'retry' : 'first');
  let writes = 0;
  let grants = 0;
  let flagged = new Set<number>();
  /** Whether `flagged` was handed out: it is copied before it changes (copy on write). */
  let flaggedShared = false;

  /** Adds `violation`, or puts it in place of the one at `at` (which it extends): returns its index. */
  const flag = (violation: Violation, at = violations.length) => {
    violations[at] = violation;
    if (flaggedShared) {
      flagged = new Set(flagged);
      flaggedShared = false;
    }
    for (const id of violation.eventIds) flagged.add(id);
    return at;
  };

  const check = (event: WireEvent) => {
    if (event.kind === 'standby_promoted') return checkPromotion(event);
    if (event.token === undefined) return; // no token, nothing to fence with: no rule applies
    if (event.kind === 'write_rejected' && event.storedToken !== undefined && event.token > event.storedToken) {
      // The mirror image of a lost update: the rightful, newer holder turned away (token as text).
      flag(
        single({
          rule: 'newer-token-rejected',
          kind: 'a newer token rejected as stale',
          message: `${event.actor}'s write with token ${event.token} was rejected as stale at ${clockOf(event.at)}, but the row held only token ${event.storedToken}`,
          eventIds: [event.id],
        }),
      );
    }
    let labGrants = grantsByLab.get(event.lab);
    if (!labGrants) {
      labGrants = { byToken: new Map(), byActor: new Map() };
      grantsByLab.set(event.lab, labGrants);
    }

    if (event.kind === 'write_sent') {
      sentByActor.set(`${event.lab}/${event.actor}/${attemptOf(event)}`, {
        id: event.id,
        at: event.at,
        token: event.token,
        value: writtenValue(event),
      });
    } else if (event.kind === 'lease_renewed') {
      const renewed = labGrants.byActor.get(event.actor)?.byToken.get(event.token);
      const endsAt = expiresAtOf(event);
      if (renewed && endsAt !== undefined) renewed.endsAt = endsAt;
    } else if (event.kind === 'lease_acquired') {
      grants += 1;
      const endsAt = expiresAtOf(event);
      const grant: Grant = {
        id: event.id,
        at: event.at,
        actor: event.actor,
        token: event.token,
        ...(endsAt === undefined ? {} : { endsAt }),
      };
      const earlier = labGrants.byToken.get(grant.token);
      if (earlier) {
        flag(
          single({
            rule: 'token-granted-twice',
            kind: 'a token granted twice',
            message: `token ${grant.token} granted twice: to ${earlier.actor} at ${clockOf(earlier.at)} and to ${grant.actor} at ${clockOf(grant.at)}`,
            eventIds: [earlier.id, grant.id],
          }),
        );
      }
      if (!earlier) labGrants.byToken.set(grant.token, grant);
      if (event.resource)
        lastGrantByResource.set(`${event.lab}/${event.resource}`, { ...grant, resource: event.resource });
      const own = labGrants.byActor.get(grant.actor) ?? { latest: grant, byToken: new Map<number, Grant>() };
      own.latest = grant;
      own.byToken.set(grant.token, grant);
      labGrants.byActor.set(grant.actor, own);
    } else if (event.kind === 'write_accepted') {
      writes += 1;
      const write: Write = {
        id: event.id,
        at: event.at,
        actor: event.actor,
        token: event.token,
        value: writtenValue(event),
      };
      // One row per (lab, rowId); a write that does not name its row is the lab's one row.
      const rowKey = event.rowId === undefined ? event.lab : `${event.lab}#${event.rowId}`;
      const previous = lastWriteByRow.get(rowKey);
      const lost = lostInFailover.get(rowKey);
      if (previous && lost === previous && write.token < previous.token) {
        // Not an overwrite: the newer write was already gone with the old primary, and this older
        // token was let through by a row that went back. Told inside the loss it follows from.
        const at = violationOfLoss.get(lost.id);
        const stale = staleAfterLoss(write, previous);
        if (at === undefined) flag(single(stale));
        else flag(adding(violations[at] as Violation, [stale]), at);
        lastWrite = write;
        return;
      }
      const findings: Finding[] = [];
      if (previous && write.token < previous.token) {
        findings.push({
          rule: 'token-went-back',
          kind: 'the row went back to an older token',
          message: `the row's token went back from ${previous.token} to ${write.token}`,
          eventIds: [previous.id, write.id],
        });
      }
      lastWriteByRow.set(rowKey, write);
      lastWrite = write;
      const held = checkHolder(write, labGrants.byActor.get(write.actor));
      if (held.neverGranted) findings.push(held.neverGranted);
      const lease = held.lease;
      if (lease) {
        let fences = fencesByRow.get(rowKey);
        if (!fences) {
          fences = new Map();
          fencesByRow.set(rowKey, fences);
        }
        // The newest lease another holder wrote this row under (few writers per row: a short loop).
        let fence: Fence | undefined;
        for (const [actor, other] of fences) {
          if (actor !== write.actor && (!fence || laterLease(other.lease, fence.lease))) fence = other;
        }
        if (fence && fence.lease.token > lease.token) {
          findings.push({
            rule: 'superseded-holder',
            kind: `written under a lease superseded by ${fence.write.actor}'s`,
            message: `${write.actor} wrote "${write.value}" with its lease token ${lease.token} at ${clockOf(write.at)}, after ${fence.write.actor} had written with the newer token ${fence.lease.token}: its lease was superseded`,
            eventIds: [lease.id, fence.write.id, write.id],
          });
        } else if (fence && laterLease(fence.lease, lease)) {
          // The same token, granted again to a later holder (a takeover that kept the token): the
          // <= check cannot tell the two holders apart, and the older one's write goes through.
          findings.push({
            rule: 'superseded-holder',
            kind: `written under a lease superseded by ${fence.write.actor}'s, with the same token`,
            message: `${fence.write.actor} was granted token ${lease.token} after ${write.actor} (at ${clockOf(fence.lease.at)}) and had written "${fence.write.value}" with it, so ${write.actor}'s lease was superseded`,
            eventIds: [lease.id, fence.lease.id, fence.write.id, write.id],
          });
        }
        const superseded = findings.some((finding) => finding.rule === 'superseded-holder');
        if (superseded && held.wrongToken) findings.push(held.wrongToken);
        if (findings.length > 0 && lease.endsAt !== undefined && write.at > lease.endsAt) {
          findings.push(
            lateWrite(write, lease, lease.endsAt, sentByActor.get(`${event.lab}/${write.actor}/${attemptOf(event)}`)),
          );
        }
        const mine = fences.get(write.actor);
        if (!mine || !laterLease(mine.lease, lease)) fences.set(write.actor, { write, lease });
      }
      if (findings.length > 0) violationOfWrite.set(write.id, flag(ofWrite(write, previous, findings)));
    }
  };

  /** The failover lab's promotion (checker-failover.ts): what it lost is remembered, so a later stale write is named. */
  const checkPromotion = (event: WireEvent) => {
    const rowKey = event.rowId === undefined ? event.lab : `${event.lab}#${event.rowId}`;
    const judged = judgePromotion(event, lastWriteByRow.get(rowKey), (resource) =>
      lastGrantByResource.get(`${event.lab}/${resource}`),
    );
    if (judged.lostWrite) lostInFailover.set(rowKey, judged.lostWrite);
    judged.findings.forEach((finding, i) => {
      const at = flag(single(finding));
      if (i === 0 && judged.lostWrite) violationOfLoss.set(judged.lostWrite.id, at);
    });
  };

  return {
    append(events, from = 0, to = events.length) {
      for (let i = from; i < to; i++) check(events[i] as WireEvent);
    },
    verdict(finalRow) {
      const all = violations.slice();
      if (finalRow && lastWrite && (finalRow.value !== lastWrite.value || finalRow.lastToken !== lastWrite.token)) {
        const wrong: Finding = {
          rule: 'final-state',
          kind: 'the row does not hold the last accepted write',
          message: `final state: the row holds "${finalRow.value}" (token ${finalRow.lastToken}), but the last accepted write was ${lastWrite.actor}'s "${lastWrite.value}" (token ${lastWrite.token}) at ${clockOf(lastWrite.at)}`,
          eventIds: [lastWrite.id],
        };
        // The same write's violation, if it made one: the row is one more thing wrong with it.
        const at = violationOfWrite.get(lastWrite.id);
        if (at === undefined) all.push(single(wrong));
        else all[at] = adding(all[at] as Violation, [wrong]);
      }
      return { ok: all.length === 0, violations: all, checked: { writes, grants } };
    },
    flagged() {
      flaggedShared = true;
      return flagged;
    },
  };
}

/**
 * A lost update made after the writer's lease had run out by the database's clock. When the writer
 * sent it (`sent`) while the lease still ran, the network delayed it, and the finding says so.
 */
function lateWrite(
  write: Write,
  lease: Grant,
  endsAt: number,
  sent: { id: number; at: number; token: number; value: string } | undefined,
): Finding {
  const delayed =
    sent && sent.token === write.token && sent.value === write.value && sent.at <= endsAt ? sent : undefined;
  return {
    rule: 'write-after-expiry',
    kind: delayed ? 'sent while its lease ran, received after it ran out' : 'written after its lease ran out',
    message: `${write.actor} wrote "${write.value}" with token ${write.token} at ${clockOf(write.at)}, ${write.at - endsAt} ms after its lease (token ${lease.token}) had run out by the database's clock at ${clockOf(endsAt)}${delayed ? `: a stale write accepted after its lease expired (sent at ${clockOf(delayed.at)}, while the lease still ran, and received ${write.at - delayed.at} ms later)` : ''}`,
    eventIds: delayed ? [lease.id, delayed.id, write.id] : [lease.id, write.id],
  };
}

/**
 * The lease a write was made under: the one whose token it presents, else the writer's latest (for
 * the superseded check). `own`: the writer's grants before the write. A write by a process never
 * granted a lease is a finding of its own; a token that is not its lease's (a per-process counter)
 * is only told when the write loses a newer holder's value: until then it has done no harm.
 *
 * A stale holder writing before the new holder's first write is not flagged: that write is ordered
 * before every newer one, and no newer value is lost. What fencing forbids is writing after a newer
 * lease has written, which the caller checks with the lease returned here.
 */
function checkHolder(
  write: Write,
  own: { latest: Grant; byToken: Map<number, Grant> } | undefined,
): { lease?: Grant; neverGranted?: Finding; wrongToken?: Finding } {
  const current = own?.latest;
  if (!current) {
    return {
      neverGranted: {
        rule: 'superseded-holder',
        kind: 'written by a process never granted a lease',
        message: `${write.actor} wrote with token ${write.token}, but it was never granted a lease ("${write.value}" at ${clockOf(write.at)})`,
        eventIds: [write.id],
      },
    };
  }
  const lease = own?.byToken.get(write.token);
  if (lease) return { lease };
  return {
    lease: current,
    wrongToken: {
      rule: 'superseded-holder',
      kind: "presenting a token that is not its lease's",
      message: `${write.actor} wrote with token ${write.token}, but its lease is token ${current.token}: a token from anywhere else fences nothing`,
      eventIds: [current.id, write.id],
    },
  };
}
