import { judgePromotion, staleAfterLoss } from './checker-failover';
import type { WireEvent } from './wire';

/*
 * The history checker: a pure function of the event log that says whether the fencing-token
 * pattern held, and if not, which events prove it. It only trusts what the database recorded
 * (id order is commit order, `at` is the database's clock), never what a worker believed.
 *
 * Every rule is checked within one lab: the labs run side by side, and the token-as-text lab
 * draws its tokens from a sequence of its own (restarted on reset), so tokens from two labs
 * say nothing about each other. Nothing is remembered between calls either (a checker made by
 * `createHistoryChecker` remembers only the log it was fed).
 */

export type Rule =
  | 'token-went-back'
  | 'final-state'
  | 'superseded-holder'
  | 'token-granted-twice'
  | 'newer-token-rejected'
  | 'write-after-expiry'
  /** A failover: a write or grant the primary acknowledged is not on the promoted standby. */
  | 'acknowledged-write-lost'
  /** A failover: a write with an older token accepted after a newer one was acknowledged (and lost). */
  | 'stale-write-accepted';

export type Violation = { rule: Rule; message: string; eventIds: number[] };

export type Verdict = { ok: boolean; violations: Violation[]; checked: { writes: number; grants: number } };

/** The row as it is in the database now (the snapshot's `row`). */
export type FinalRow = { value: string; lastToken: number };

/** `endsAt`: when the lease ends by the database's clock, as its grant and renewals said. */
export type Grant = { id: number; at: number; actor: string; token: number; endsAt?: number };
/** A lab's grants, indexed so that a long history is checked in linear time. */
type LabGrants = { byToken: Map<number, Grant>; byActor: Map<string, { latest: Grant; byToken: Map<number, Grant> }> };
export type Write = { id: number; at: number; actor: string; token: number; value: string };
/** A holder's accepted write under its newest lease so far on a row: it fenced out every older lease. */
type Fence = { write: Write; lease: Grant };

/** Database time as HH:MM:SS.mmm UTC, the precision at which the interesting things happen. */
export const clockOf = (at: number): string => new Date(at).toISOString().slice(11, 23);

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

  const flag = (violation: Violation) => {
    violations.push(violation);
    if (flaggedShared) {
      flagged = new Set(flagged);
      flaggedShared = false;
    }
    for (const id of violation.eventIds) flagged.add(id);
  };

  const check = (event: WireEvent) => {
    if (event.kind === 'standby_promoted') return checkPromotion(event);
    if (event.token === undefined) return; // no token, nothing to fence with: no rule applies
    if (event.kind === 'write_rejected' && event.storedToken !== undefined && event.token > event.storedToken) {
      // The mirror image of a lost update: the rightful, newer holder turned away (token as text).
      flag({
        rule: 'newer-token-rejected',
        message: `${event.actor}'s write with token ${event.token} was rejected as stale at ${clockOf(event.at)}, but the row held only token ${event.storedToken}`,
        eventIds: [event.id],
      });
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
        flag({
          rule: 'token-granted-twice',
          message: `token ${grant.token} granted twice: to ${earlier.actor} at ${clockOf(earlier.at)} and to ${grant.actor} at ${clockOf(grant.at)}`,
          eventIds: [earlier.id, grant.id],
        });
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
      let lostUpdate = false;
      const lost = lostInFailover.get(rowKey);
      if (previous && lost === previous && write.token < previous.token) {
        // Not an overwrite: the newer write was already gone with the old primary, and this older
        // token was let through by a row that went back. Named once, as what it is.
        flag(staleAfterLoss(write, previous));
        lastWrite = write;
        return;
      }
      if (previous && write.token < previous.token) {
        lostUpdate = true;
        flag({
          rule: 'token-went-back',
          message: `lost update: ${previous.actor}'s value "${previous.value}" (token ${previous.token}) overwritten by ${write.actor} with token ${write.token} at ${clockOf(write.at)}`,
          eventIds: [previous.id, write.id],
        });
      }
      lastWriteByRow.set(rowKey, write);
      lastWrite = write;
      const { lease, violations: holderViolations } = checkHolder(write, labGrants.byActor.get(write.actor));
      for (const violation of holderViolations) flag(violation);
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
          lostUpdate = true;
          flag({
            rule: 'superseded-holder',
            message: `${write.actor} wrote "${write.value}" with its lease token ${lease.token} at ${clockOf(write.at)}, after ${fence.write.actor} had written with the newer token ${fence.lease.token}: its lease was superseded`,
            eventIds: [lease.id, fence.write.id, write.id],
          });
        } else if (fence && laterLease(fence.lease, lease)) {
          // The same token, granted again to a later holder (a takeover that kept the token): the
          // <= check cannot tell the two holders apart, and the older one's write goes through.
          lostUpdate = true;
          flag({
            rule: 'superseded-holder',
            message: `lost update: ${fence.write.actor}'s value "${fence.write.value}" (token ${fence.lease.token}) overwritten by ${write.actor} with the same token ${lease.token} at ${clockOf(write.at)}: ${fence.write.actor} was granted that token after ${write.actor} (at ${clockOf(fence.lease.at)}), so ${write.actor}'s lease was superseded`,
            eventIds: [lease.id, fence.lease.id, fence.write.id, write.id],
          });
        }
        if (lostUpdate && lease.endsAt !== undefined && write.at > lease.endsAt) {
          // Sent while the lease still ran, received after it ended: the network delayed it.
          const sent = sentByActor.get(`${event.lab}/${write.actor}/${attemptOf(event)}`);
          const delayed =
            sent && sent.token === write.token && sent.value === write.value && sent.at <= lease.endsAt
              ? sent
              : undefined;
          flag({
            rule: 'write-after-expiry',
            message: `${write.actor} wrote "${write.value}" with token ${write.token} at ${clockOf(write.at)}, ${write.at - lease.endsAt} ms after its lease (token ${lease.token}) had run out by the database's clock at ${clockOf(lease.endsAt)}${delayed ? `: a stale write accepted after its lease expired (sent at ${clockOf(delayed.at)}, while the lease still ran, and received ${write.at - delayed.at} ms later)` : ''}`,
            eventIds: delayed ? [lease.id, delayed.id, write.id] : [lease.id, write.id],
          });
        }
        const mine = fences.get(write.actor);
        if (!mine || !laterLease(mine.lease, lease)) fences.set(write.actor, { write, lease });
      }
    }
  };

  /** The failover lab's promotion (checker-failover.ts): what it lost is remembered, so a later stale write is named. */
  const checkPromotion = (event: WireEvent) => {
    const rowKey = event.rowId === undefined ? event.lab : `${event.lab}#${event.rowId}`;
    const judged = judgePromotion(event, lastWriteByRow.get(rowKey), (resource) =>
      lastGrantByResource.get(`${event.lab}/${resource}`),
    );
    if (judged.lostWrite) lostInFailover.set(rowKey, judged.lostWrite);
    for (const violation of judged.violations) flag(violation);
  };

  return {
    append(events, from = 0, to = events.length) {
      for (let i = from; i < to; i++) check(events[i] as WireEvent);
    },
    verdict(finalRow) {
      const all = violations.slice();
      if (finalRow && lastWrite && (finalRow.value !== lastWrite.value || finalRow.lastToken !== lastWrite.token)) {
        all.push({
          rule: 'final-state',
          message: `final state: the row holds "${finalRow.value}" (token ${finalRow.lastToken}), but the last accepted write was ${lastWrite.actor}'s "${lastWrite.value}" (token ${lastWrite.token}) at ${clockOf(lastWrite.at)}`,
          eventIds: [lastWrite.id],
        });
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
 * Did the writer present its own lease's token? A token from anywhere else (a per-process counter)
 * fences nothing. Returns the lease the write was made under (the one whose token it presents,
 * else the writer's latest) for the superseded check. `own`: the writer's grants before the write.
 *
 * A stale holder writing before the new holder's first write is not flagged: that write is ordered
 * before every newer one, and no newer value is lost. What fencing forbids is writing after a newer
 * lease has written, which the caller checks with the lease returned here.
 */
function checkHolder(
  write: Write,
  own: { latest: Grant; byToken: Map<number, Grant> } | undefined,
): { lease?: Grant; violations: Violation[] } {
  const current = own?.latest;
  // Worded only for a violation: most writes have none.
  const at = () => `("${write.value}" at ${clockOf(write.at)})`;
  if (!current) {
    return {
      violations: [
        {
          rule: 'superseded-holder',
          message: `${write.actor} wrote with token ${write.token}, but it was never granted a lease ${at()}`,
          eventIds: [write.id],
        },
      ],
    };
  }
  const lease = own?.byToken.get(write.token);
  if (lease) return { lease, violations: [] };
  return {
    lease: current,
    violations: [
      {
        rule: 'superseded-holder',
        message: `${write.actor} wrote with token ${write.token}, but its lease is token ${current.token} ${at()}`,
        eventIds: [current.id, write.id],
      },
    ],
  };
}
