/*
 * The class wall (issue 15 part 2): every trainee's guard attempts, one row per trainee, newest
 * first. Pure: the attempts come from guard_attempts (db/guard-attempts.ts), already filtered to
 * what the viewer may see (the trainer: everyone's; anyone else: their own).
 */

/** An attempt as a browser may see it: the trainee is a key made from the owner's hash, never the hash. */
export type WallAttempt = {
  id: number;
  trainee: string;
  name: string;
  outcome: 'passed' | 'violation' | 'refused';
  verdict: string;
  hasCounterexample: boolean;
  /** ms since the epoch (the database's clock). */
  at: number;
};

export type WallRow = {
  trainee: string;
  /** The name of the trainee's latest attempt, as they chose it. */
  name: string;
  attempts: number;
  latest: WallAttempt;
  /** The trainee's latest attempt with a counterexample, for the projector. */
  counterexample?: WallAttempt;
  passed: boolean;
};

/** One row per trainee, the most recently active first; each attempt counted once, however often it was sent. */
export function wallRows(attempts: readonly WallAttempt[]): WallRow[] {
  const seen = new Set<number>();
  const rows = new Map<string, WallRow>();
  for (const attempt of [...attempts].sort((a, b) => a.id - b.id)) {
    if (seen.has(attempt.id)) continue;
    seen.add(attempt.id);
    const row = rows.get(attempt.trainee);
    const counterexample = attempt.hasCounterexample ? attempt : row?.counterexample;
    rows.set(attempt.trainee, {
      trainee: attempt.trainee,
      name: attempt.name,
      attempts: (row?.attempts ?? 0) + 1,
      latest: attempt,
      ...(counterexample ? { counterexample } : {}),
      passed: attempt.outcome === 'passed',
    });
  }
  return [...rows.values()].sort((a, b) => b.latest.id - a.latest.id);
}

/** What the wall says of a row's latest attempt. */
export function wallWords(row: WallRow): string {
  const { outcome, verdict } = row.latest;
  if (outcome === 'passed') return 'passed';
  return verdict;
}
