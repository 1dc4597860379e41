import type { GuardOutcome, GuardQueuePlace } from './guard-inputs';

/*
 * The class wall (issue 15 part 2, issue 22 part 3): one row per guard attempt, newest first, each
 * with its time, its trainee, its statement and its verdict; the statements refused before they ran
 * kept apart, and not counted as attempts (nothing attacked them). Pure: the attempts come from
 * guard_attempts (db/guard-attempts.ts), already filtered to what the viewer may see (the trainer:
 * everyone's; anyone else: their own).
 */

/** An attempt as a browser may see it: the trainee is a key made from the owner's hash, never the hash. */
export type WallAttempt = {
  id: number;
  trainee: string;
  name: string;
  /** The canonical statement that ran (or the text refused). */
  statement: string;
  outcome: GuardOutcome;
  /** The verdict, the reason refused, or (queued) where it stands in line. */
  verdict: string;
  /** Only while queued: its place (0 = being attacked) and estimate. */
  queue?: GuardQueuePlace;
  hasCounterexample: boolean;
  /** ms since the epoch (the database's clock). */
  at: number;
};

export type Wall = {
  /** The attacked attempts, newest first. */
  attacks: WallAttempt[];
  /** The statements refused before they ran, newest first. */
  refusals: WallAttempt[];
  /** How many trainees have an attacked attempt. */
  trainees: number;
};

/** Characters of the trainee's key shown beside their name: two browsers with one name read apart. */
const SUFFIX_CHARS = 4;

/** The wall's rows; each attempt counted once, however often the live feed sent it. */
export function wallOf(attempts: readonly WallAttempt[]): Wall {
  const byId = new Map(attempts.map((attempt) => [attempt.id, attempt]));
  const newestFirst = [...byId.values()].sort((a, b) => b.id - a.id);
  const attacks = newestFirst.filter((attempt) => attempt.outcome !== 'refused');
  return {
    attacks,
    refusals: newestFirst.filter((attempt) => attempt.outcome === 'refused'),
    trainees: new Set(attacks.map((attempt) => attempt.trainee)).size,
  };
}

/**
 * Who made an attempt, as the wall says it: the name they chose and a short stable suffix of their
 * key ("Tina · 3f9a"), so two browsers that chose one name are told apart; the key is a hash of the
 * owner's hash (lib/server/class-wall.ts), never their secret nor its hash.
 */
export function traineeLabel(attempt: Pick<WallAttempt, 'name' | 'trainee'>): string {
  return `${attempt.name} · ${attempt.trainee.slice(0, SUFFIX_CHARS)}`;
}

/** What the wall says of an attempt's verdict. */
export function wallWords(attempt: Pick<WallAttempt, 'outcome' | 'verdict'>): string {
  return attempt.outcome === 'passed' ? `✓ ${attempt.verdict}` : `✗ ${attempt.verdict}`;
}
