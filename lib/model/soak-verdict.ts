import type { ChaosCounts } from './chaos-tally';
import type { Rule, Violation } from './checker';
import { isFencedKind, type LabId, type WorkerLabId } from './lab-kinds';

/*
 * What a soak expects of each lab under aimed chaos, and whether a lab's run met it. A fenced lab
 * must make stale write attempts (or it proved nothing) and let none through: 0 violations. A
 * broken lab must show the rule it is named for, in a violation's kinds (other rules may come with it).
 */

export type LabExpectation = { rule: Rule | null; why: string };

export const LAB_EXPECTATIONS: Record<WorkerLabId, LabExpectation> = {
  fenced: { rule: null, why: 'every stale write rejected by the guard: 0 violations' },
  'delayed-packet': { rule: null, why: 'every held write rejected when it arrives: 0 violations' },
  'no-fencing': { rule: 'token-went-back', why: "a stale holder's write overwrites a newer one: a lost update" },
  'read-check-write': {
    rule: 'token-went-back',
    why: 'a holder frozen between its check and its write overwrites a newer value',
  },
  'token-as-text': {
    rule: 'newer-token-rejected',
    why: "the newer holder's token gains a digit and is rejected as stale ('10' < '9')",
  },
  'per-process-counter': {
    rule: 'superseded-holder',
    why: 'two holders present the same counter, so a superseded holder still writes',
  },
  bypass: {
    rule: 'token-went-back',
    why: 'a holder woken overdue takes the catch-up path and overwrites a newer value',
  },
  'same-token-takeover': {
    rule: 'superseded-holder',
    why: "a takeover hands over the old holder's token, so its late write passes the <= check",
  },
  'drifting-clock': {
    rule: 'write-after-expiry',
    why: "a holder whose clock runs slow writes after its lease ran out by the database's clock",
  },
  'drifting-clock-fenced': {
    rule: null,
    why: "every stale write rejected by the row's token, whatever its writer's clock says: 0 violations",
  },
  'delayed-packet-unfenced': {
    rule: 'write-after-expiry',
    why: "a write held on the wire arrives after the lease ran out and overwrites the new holder's value",
  },
};

/** Whether a lab is built to fail (a broken lab): before its mistake happens, it has "no violation yet". */
export function expectsViolation(kind: LabId): boolean {
  return kind in LAB_EXPECTATIONS && LAB_EXPECTATIONS[kind as WorkerLabId].rule !== null;
}

export type LabJudgement = { ok: boolean; says: string };

export function judgeLab(
  kind: WorkerLabId,
  verdict: { violations: readonly Pick<Violation, 'kinds'>[] },
  t: ChaosCounts,
): LabJudgement {
  const expected = LAB_EXPECTATIONS[kind];
  // A lost update is one violation listing every rule it broke: the lab is judged on all of them.
  const rules = [...new Set(verdict.violations.flatMap((v) => v.kinds))];
  if (isFencedKind(kind)) {
    if (verdict.violations.length > 0 || t.staleAccepted > 0) {
      return { ok: false, says: `UNSAFE: ${verdict.violations.length} violations (${rules.join(', ')})` };
    }
    if (t.staleAttempts === 0) return { ok: false, says: 'unproven: no stale write was attempted' };
    return { ok: true, says: `safe: ${t.staleAttempts} stale write attempts, every one rejected; 0 violations` };
  }
  if (expected.rule && rules.includes(expected.rule)) {
    return { ok: true, says: `broken as named: ${expected.rule} (${verdict.violations.length} violations in all)` };
  }
  return {
    ok: false,
    says: `not as named: expected ${expected.rule}, found ${rules.length ? rules.join(', ') : 'no violation'}`,
  };
}
