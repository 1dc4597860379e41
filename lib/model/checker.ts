import type { WireEvent } from './wire';

/*
 * The history checker: a pure function of the event log that says whether the fencing-token
 * pattern held, and if not, which events prove it. It only trusts what the database recorded
 * (id order is commit order, `at` is the database's clock), never what a worker believed.
 *
 * Every rule is checked within one lab: the labs run side by side, and the token-as-text lab
 * draws its tokens from a sequence of its own (restarted on reset), so tokens from two labs
 * say nothing about each other. Nothing is remembered between calls either.
 */

export type Rule = 'token-went-back' | 'final-state' | 'superseded-holder' | 'token-granted-twice';

export type Violation = { rule: Rule; message: string; eventIds: number[] };

export type Verdict = { ok: boolean; violations: Violation[]; checked: { writes: number; grants: number } };

/** The row as it is in the database now (the snapshot's `row`). */
export type FinalRow = { value: string; lastToken: number };

type Grant = { id: number; at: number; actor: string; token: number };
type Write = { id: number; at: number; actor: string; token: number; value: string };

/** Database time as HH:MM:SS.mmm UTC, the precision at which the interesting things happen. */
export const clockOf = (at: number): string => new Date(at).toISOString().slice(11, 23);

const writtenValue = (event: WireEvent): string => {
  const value = event.detail.value;
  return typeof value === 'string' ? value : value === undefined ? '' : String(value);
};

/** Checks a history (events of one or more labs, in id order). `finalRow` is the row as it ended. */
export function checkHistory(events: readonly WireEvent[], finalRow?: FinalRow): Verdict {
  const violations: Violation[] = [];
  // Id order is commit order; sort a copy so a log assembled out of order is still judged right.
  const ordered = [...events].sort((a, b) => a.id - b.id);
  const grantsByLab = new Map<string, Grant[]>();
  const lastWriteByRow = new Map<string, Write>();
  let lastWrite: Write | undefined;
  let writes = 0;
  let grants = 0;

  for (const event of ordered) {
    if (event.token === undefined) continue; // no token, nothing to fence with: no rule applies
    const labGrants = grantsByLab.get(event.lab) ?? [];
    grantsByLab.set(event.lab, labGrants);

    if (event.kind === 'lease_acquired') {
      grants += 1;
      const grant: Grant = { id: event.id, at: event.at, actor: event.actor, token: event.token };
      const earlier = labGrants.find((g) => g.token === grant.token);
      if (earlier) {
        violations.push({
          rule: 'token-granted-twice',
          message: `token ${grant.token} granted twice: to ${earlier.actor} at ${clockOf(earlier.at)} and to ${grant.actor} at ${clockOf(grant.at)}`,
          eventIds: [earlier.id, grant.id],
        });
      }
      labGrants.push(grant);
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
      if (previous && write.token < previous.token) {
        violations.push({
          rule: 'token-went-back',
          message: `lost update: ${previous.actor}'s value "${previous.value}" (token ${previous.token}) overwritten by ${write.actor} with token ${write.token} at ${clockOf(write.at)}`,
          eventIds: [previous.id, write.id],
        });
      }
      lastWriteByRow.set(rowKey, write);
      lastWrite = write;
      violations.push(...checkHolder(write, labGrants));
    }
  }

  if (finalRow && lastWrite && (finalRow.value !== lastWrite.value || finalRow.lastToken !== lastWrite.token)) {
    violations.push({
      rule: 'final-state',
      message: `final state: the row holds "${finalRow.value}" (token ${finalRow.lastToken}), but the last accepted write was ${lastWrite.actor}'s "${lastWrite.value}" (token ${lastWrite.token}) at ${clockOf(lastWrite.at)}`,
      eventIds: [lastWrite.id],
    });
  }

  return { ok: violations.length === 0, violations, checked: { writes, grants } };
}

/**
 * Was the writer still the holder? Its presented token must be one of its own lease tokens (a token
 * from anywhere else, like a per-process counter, fences nothing), and no other holder may have been
 * granted a newer lease since. `grants` are the lab's grants committed before the write.
 */
function checkHolder(write: Write, grants: readonly Grant[]): Violation[] {
  const own = grants.filter((g) => g.actor === write.actor);
  const current = own.at(-1);
  const at = `("${write.value}" at ${clockOf(write.at)})`;
  if (!current) {
    return [
      {
        rule: 'superseded-holder',
        message: `${write.actor} wrote with token ${write.token}, but it was never granted a lease ${at}`,
        eventIds: [write.id],
      },
    ];
  }
  const violations: Violation[] = [];
  // The lease the write was made under: the one whose token it presents, else the writer's latest.
  let lease = own.findLast((g) => g.token === write.token);
  if (!lease) {
    lease = current;
    violations.push({
      rule: 'superseded-holder',
      message: `${write.actor} wrote with token ${write.token}, but its lease is token ${lease.token} ${at}`,
      eventIds: [lease.id, write.id],
    });
  }
  const leaseToken = lease.token;
  const newer = grants.find((g) => g.actor !== write.actor && g.token > leaseToken);
  if (newer) {
    violations.push({
      rule: 'superseded-holder',
      message: `${write.actor} wrote "${write.value}" with token ${write.token} at ${clockOf(write.at)}, but its lease (token ${leaseToken}) had been superseded: ${newer.actor} was granted token ${newer.token} at ${clockOf(newer.at)}`,
      eventIds: [lease.id, newer.id, write.id],
    });
  }
  return violations;
}
