import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  counterexampleName,
  queueLine,
  traineeLabel,
  type WallAttempt,
  wallOf,
  wallVerdict,
  wallWords,
  withAttempt,
} from './class-wall';

const attempt = (id: number, trainee: string, outcome: WallAttempt['outcome'], name = trainee): WallAttempt => ({
  id,
  trainee,
  name,
  statement: `UPDATE guarded_row SET value = $1 WHERE id = $3 /* #${id} */`,
  outcome,
  verdict:
    outcome === 'violation'
      ? `your guard let token 9 overwrite token 10 (#${id})`
      : outcome === 'passed'
        ? `your guard held against the pause story (#${id})`
        : `refused (#${id})`,
  hasCounterexample: outcome === 'violation',
  at: id * 1000,
});

describe('the class wall', () => {
  it('has one row per attempt, newest first, each with its own statement, verdict and counterexample', () => {
    const wall = wallOf([
      attempt(1, 'ada1', 'violation'),
      attempt(2, 'bob2', 'refused'),
      attempt(3, 'ada1', 'violation', 'Ada L.'),
      attempt(4, 'ada1', 'passed', 'Ada L.'),
    ]);
    assert.deepEqual(
      wall.attacks.map((a) => [a.id, a.name, wallWords(a), a.hasCounterexample, a.statement.slice(-5)]),
      [
        [4, 'Ada L.', '✓ your guard held against the pause story (#4)', false, '#4 */'],
        [3, 'Ada L.', '✗ your guard let token 9 overwrite token 10 (#3)', true, '#3 */'],
        [1, 'ada1', '✗ your guard let token 9 overwrite token 10 (#1)', true, '#1 */'],
      ],
    );
  });

  it('keeps refusals apart and does not count them as attempts or their trainees as attacked', () => {
    const wall = wallOf([
      attempt(1, 'ada1', 'violation'),
      attempt(2, 'bob2', 'refused'),
      attempt(3, 'bob2', 'refused'),
    ]);
    assert.deepEqual(
      wall.refusals.map((a) => a.id),
      [3, 2],
    );
    assert.equal(wall.attacks.length, 1);
    assert.equal(wall.trainees, 1);
  });

  it('counts an attempt once, however often the live feed sent it, and in id order whatever the arrival', () => {
    const wall = wallOf([attempt(5, 'c', 'violation'), attempt(4, 'c', 'passed'), attempt(5, 'c', 'violation')]);
    assert.deepEqual(
      wall.attacks.map((a) => a.id),
      [5, 4],
    );
  });

  it('tells two trainees with the same name apart, by a short suffix of their key', () => {
    const tina = attempt(1, '3f9a0c1d2e3f4a5b', 'passed', 'Tina Trainee');
    const other = attempt(2, 'b7e1aa00ffee0011', 'passed', 'Tina Trainee');
    assert.equal(traineeLabel(tina), 'Tina Trainee · 3f9a');
    assert.equal(traineeLabel(other), 'Tina Trainee · b7e1');
    assert.notEqual(traineeLabel(tina), traineeLabel(other));
  });

  it('names a counterexample by whose guard it was, told apart as on the wall, not by the name alone', () => {
    const tina = attempt(12, '3f9a0c1d2e3f4a5b', 'passed', 'Tina Trainee');
    const other = attempt(13, 'b7e1aa00ffee0011', 'passed', 'Tina Trainee');
    assert.equal(counterexampleName(tina), 'attempt 12, the guard of Tina Trainee · 3f9a');
    assert.equal(counterexampleName(other), 'attempt 13, the guard of Tina Trainee · b7e1');
  });
});

describe('the class wall while guards wait', () => {
  const queued = (id: number, place: number | undefined): WallAttempt => ({
    ...attempt(id, `t${id}`, 'queued'),
    verdict: place === 0 ? 'being attacked' : 'in line',
    ...(place === undefined ? {} : { queue: { place, estimateSeconds: 10 } }),
  });

  it('says a queued attempt is in line or being attacked, and a failed one its verdict', () => {
    assert.equal(wallWords(queued(1, 3)), '⏳ in line');
    assert.equal(wallWords(queued(2, 0)), '⏳ being attacked');
    // Before the queue was read (the feed's row only): the row's own words.
    assert.equal(wallWords({ ...queued(3, undefined), verdict: 'being attacked' }), '⏳ being attacked');
    const failed = { ...attempt(4, 'd', 'failed'), verdict: 'the attack could not finish: the app servers stopped' };
    assert.equal(wallWords(failed), '✗ the attack could not finish: the app servers stopped');
    // The mark apart from the words: a page shows it to the eye only (a screen reader reads the words).
    assert.deepEqual(wallVerdict(queued(1, 3)), { mark: '⏳', words: 'in line' });
    assert.deepEqual(wallVerdict(failed), { mark: '✗', words: 'the attack could not finish: the app servers stopped' });
  });

  it('counts the attempts in line and being attacked, for the trainer’s line', () => {
    const wall = wallOf([
      queued(1, 0),
      queued(2, 0),
      queued(3, 1),
      queued(4, 2),
      queued(5, 3),
      attempt(6, 'x', 'passed'),
    ]);
    assert.deepEqual(wall.waiting, { inLine: 3, attacked: 2 });
    assert.equal(queueLine(wall.waiting), 'In line: 3 · being attacked: 2');
    assert.equal(wall.attacks.length, 6);
  });

  it('replaces an attempt the feed sends again, and never goes back a stage', () => {
    let held = [queued(1, 2), queued(2, 1)];
    held = withAttempt(held, queued(1, 0));
    assert.deepEqual(wallOf(held).waiting, { inLine: 1, attacked: 1 });
    const verdict = attempt(1, 't1', 'violation');
    held = withAttempt(held, verdict);
    assert.equal(held.length, 2);
    assert.equal(wallWords(wallOf(held).attacks[1] as WallAttempt), wallWords(verdict));
    // The claim's version, read before the verdict but arriving after it, is dropped.
    assert.equal(withAttempt(held, queued(1, 0)), held);
    assert.equal(withAttempt(withAttempt(held, queued(2, 0)), queued(2, 1)).find((a) => a.id === 2)?.queue?.place, 0);
    assert.equal(withAttempt(held, queued(3, 1)).length, 3);
  });
});
