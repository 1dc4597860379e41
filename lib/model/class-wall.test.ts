import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { traineeLabel, type WallAttempt, wallOf, wallWords } from './class-wall';

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
});
