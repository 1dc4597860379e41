import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workerClock } from './worker-clock';

test('a clock 75 % slow moves a quarter second for each real second, from the real time at its start', () => {
  let real = 1_000_000;
  const clock = workerClock(75, () => real);
  assert.equal(clock.now(), 1_000_000);
  real += 4_000;
  assert.equal(clock.now(), 1_001_000);
  assert.equal(clock.realMsFor(1_000), 4_000, 'one second by its clock takes four real seconds');
});

test('a clock 0 % slow keeps time', () => {
  let real = 5;
  const clock = workerClock(0, () => real);
  real += 1_234;
  assert.equal(clock.now(), 1_239);
  assert.equal(clock.realMsFor(700), 700);
});

test('a drift out of bounds is refused', () => {
  for (const bad of [-1, 91, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => workerClock(bad, () => 0), RangeError);
  }
});
