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
  /** Of the attempts held, how many wait in line and how many are being attacked now. */
  waiting: { inLine: number; attacked: number };
};

/** Characters of the trainee's key shown beside their name: two browsers with one name read apart. */
const SUFFIX_CHARS = 4;

/** The wall's rows; each attempt counted once, however often the live feed sent it. */
export function wallOf(attempts: readonly WallAttempt[]): Wall {
  const byId = new Map(attempts.map((attempt) => [attempt.id, attempt]));
  const newestFirst = [...byId.values()].sort((a, b) => b.id - a.id);
  const attacks = newestFirst.filter((attempt) => attempt.outcome !== 'refused');
  const stages = attacks.map(waitingOf);
  return {
    attacks,
    refusals: newestFirst.filter((attempt) => attempt.outcome === 'refused'),
    trainees: new Set(attacks.map((attempt) => attempt.trainee)).size,
    waiting: {
      inLine: stages.filter((how) => how === 'in line').length,
      attacked: stages.filter((how) => how === 'being attacked').length,
    },
  };
}

/** How far an attempt has gone: in line, being attacked, its verdict; it never goes back. */
const stage = (attempt: WallAttempt) =>
  ({ 'in line': 0, 'being attacked': 1, verdict: 2 })[waitingOf(attempt) ?? 'verdict'];

/**
 * The attempts held, with `attempt` as the live feed sent it again (claimed, then its verdict): it
 * replaces the version held. The feed reads each change's row on its own, so two close changes may
 * cross: a version from an earlier stage than the one held (a claim's after the verdict) is dropped.
 */
export function withAttempt(attempts: WallAttempt[], attempt: WallAttempt): WallAttempt[] {
  const held = attempts.find((one) => one.id === attempt.id);
  if (!held) return [...attempts, attempt];
  if (stage(attempt) < stage(held)) return attempts;
  return attempts.map((one) => (one.id === attempt.id ? attempt : one));
}

/**
 * Where a queued attempt stands, as the wall says it: in line, or being attacked. No place number: the
 * wall hears of an attempt only when its own row changes, so a number would go stale as others leave the line.
 */
export function waitingOf(attempt: Pick<WallAttempt, 'outcome' | 'verdict' | 'queue'>): Waiting | undefined {
  if (attempt.outcome !== 'queued') return undefined;
  const place = attempt.queue?.place ?? (attempt.verdict === 'being attacked' ? 0 : 1);
  return place === 0 ? 'being attacked' : 'in line';
}

export type Waiting = 'in line' | 'being attacked';

/** The trainer's line above the table: "In line: 3 · being attacked: 2". */
export function queueLine(waiting: Wall['waiting']): string {
  return `In line: ${waiting.inLine} · being attacked: ${waiting.attacked}`;
}

/**
 * Who made an attempt, as the wall says it: the name they chose and a short stable suffix of their
 * key ("Tina · 3f9a"), so two browsers that chose one name are told apart; the key is a hash of the
 * owner's hash (lib/server/class-wall.ts), never their secret nor its hash.
 */
export function traineeLabel(attempt: Pick<WallAttempt, 'name' | 'trainee'>): string {
  return `${attempt.name} · ${attempt.trainee.slice(0, SUFFIX_CHARS)}`;
}

/**
 * A counterexample's name, on /replay: its attempt and whose guard it was, told apart as the wall
 * tells them ("attempt 12, the guard of Sam · 3f9a"), so that the projector and the wall name one
 * trainee the same way.
 */
export function counterexampleName(attempt: Pick<WallAttempt, 'id' | 'name' | 'trainee'>): string {
  return `attempt ${attempt.id}, the guard of ${traineeLabel(attempt)}`;
}

/**
 * What the wall says of an attempt's verdict, as a mark and words: the mark is for the eye (a page shows
 * it hidden from screen readers, which would read "hourglass not done"), the words say it all.
 */
export function wallVerdict(attempt: Pick<WallAttempt, 'outcome' | 'verdict' | 'queue'>): {
  mark: '⏳' | '✓' | '✗';
  words: string;
} {
  const waiting = waitingOf(attempt);
  if (waiting) return { mark: '⏳', words: waiting };
  return { mark: attempt.outcome === 'passed' ? '✓' : '✗', words: attempt.verdict };
}

/** What the wall says of an attempt's verdict, mark and words in one line ("⏳ in line"). */
export function wallWords(attempt: Pick<WallAttempt, 'outcome' | 'verdict' | 'queue'>): string {
  const { mark, words } = wallVerdict(attempt);
  return `${mark} ${words}`;
}
