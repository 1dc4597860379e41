import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type WallAttempt, wallRows, wallWords } from './class-wall';

const attempt = (id: number, trainee: string, outcome: WallAttempt['outcome'], name = trainee): WallAttempt => ({
  id,
  trainee,
  name,
  outcome,
  verdict: outcome === 'violation' ? `your guard let token 9 overwrite token 10 (#${id})` : `refused (#${id})`,
  hasCounterexample: outcome === 'violation',
  at: id * 1000,
});

describe('the class wall', () => {
  it('has one row per trainee, the most recently active first, with the number of attempts', () => {
    const rows = wallRows([
      attempt(1, 'ada', 'violation'),
      attempt(2, 'bob', 'refused'),
      attempt(3, 'ada', 'violation', 'Ada L.'),
      attempt(4, 'ada', 'passed', 'Ada L.'),
    ]);
    assert.deepEqual(
      rows.map((row) => [row.name, row.attempts, row.passed, wallWords(row), row.counterexample?.id]),
      [
        ['Ada L.', 3, true, 'passed', 3],
        ['bob', 1, false, 'refused (#2)', undefined],
      ],
    );
  });

  it('counts an attempt once, however often the live feed sent it, and in id order whatever the arrival', () => {
    const rows = wallRows([attempt(5, 'c', 'violation'), attempt(4, 'c', 'passed'), attempt(5, 'c', 'violation')]);
    assert.equal(rows[0]?.attempts, 2);
    assert.equal(rows[0]?.latest.id, 5);
    assert.equal(wallWords(rows[0] as (typeof rows)[number]), 'your guard let token 9 overwrite token 10 (#5)');
  });
});
