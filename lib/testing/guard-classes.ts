/*
 * Three kinds of guard a room writes (a third each in the classroom benchmark, bench/classroom.ts), with
 * the verdict each gets attacked alone, one at a time (lib/chaos/guard-attack.test.ts asserts the
 * same): right, missing the token check, and subtly wrong (tokens compared as text). A pass's count
 * of stale writes depends on how the chaos fell, so a pass is compared by its words without it.
 */

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';

export const GUARD_CLASSES = [
  {
    name: 'right',
    statement: `${SET} AND last_token <= $2`,
    outcome: 'passed',
    verdict:
      /^your guard held against the pause story and \d+ stale writes? over 2 seeds of chaos \(15, 16; the story sent token 9\), and every interleaving of 2 holders × 3 writes \(112\)$/,
  },
  {
    name: 'missing the check',
    statement: SET,
    outcome: 'violation',
    verdict: /^your guard let token 9 overwrite token 10$/,
  },
  {
    name: 'subtly wrong',
    statement: `${SET} AND last_token::text <= $2::text`,
    outcome: 'violation',
    verdict: /^your guard turned away token 10 while the row held only token 9$/,
  },
] as const;

export type GuardClass = (typeof GUARD_CLASSES)[number];

/** Does a verdict read as its statement's solo run does? */
export const asAlone = (guard: GuardClass, got: { outcome: string; verdict: string } | undefined): boolean =>
  got?.outcome === guard.outcome && guard.verdict.test(got.verdict);
