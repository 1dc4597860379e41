import { LABS, type LabId } from '../../labs/index';
import { isFencedKind, WORKER_LAB_IDS, type WorkerLabId } from '../../labs/traits';
import type { ChaosTally } from '../chaos/chaos-tally';
import type { Rule, Violation } from '../checker/checker';

/*
 * What a soak expects of each lab under aimed chaos, and whether a lab's run met it. A fenced lab
 * must make stale write attempts (or it proved nothing) and let none through: 0 violations. A
 * broken lab must show the rule it is named for, in a violation's kinds (other rules may come with it).
 */

export type LabExpectation = { rule: Rule | null; why: string };

/** Each worker lab's expectation, as its definition (lib/labs/<kind>.ts) gives the checker's verdict. */
export const LAB_EXPECTATIONS = Object.fromEntries(
  WORKER_LAB_IDS.map((kind): [WorkerLabId, LabExpectation] => {
    const { rule, why } = LABS[kind].checker;
    return [kind, { rule, why }];
  }),
) as Record<WorkerLabId, LabExpectation>;

/** Whether a lab is built to fail (a broken lab): before its mistake happens, it has "no violation yet". */
export function expectsViolation(kind: LabId): boolean {
  return kind in LAB_EXPECTATIONS && LAB_EXPECTATIONS[kind as WorkerLabId].rule !== null;
}

export type LabJudgement = { ok: boolean; says: string };

export function judgeLab(
  kind: WorkerLabId,
  verdict: { violations: readonly Pick<Violation, 'kinds'>[] },
  t: Pick<ChaosTally, 'staleAttempts' | 'staleAccepted'>,
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

/**
 * Whether a lab's history so far settles its judgement, so that more chaos could not change it: as
 * expected already, or a fenced lab that let a stale write through (more time cannot take that back).
 * Anything else (no stale write attempted yet, the named mistake not shown yet) wants more time.
 */
export function judgementSettled(
  kind: WorkerLabId,
  verdict: { violations: readonly Pick<Violation, 'kinds'>[] },
  t: Pick<ChaosTally, 'staleAttempts' | 'staleAccepted'>,
): boolean {
  if (judgeLab(kind, verdict, t).ok) return true;
  return isFencedKind(kind) && (verdict.violations.length > 0 || t.staleAccepted > 0);
}
