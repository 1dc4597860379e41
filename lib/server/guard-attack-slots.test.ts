import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFencingError } from '../model/errors';
import { GuardAttackSlots } from './guard-attack-slots';

/*
 * The server's bounds on attacks: one running per owner, a few a minute per owner, and a bound for the
 * machine; each refusal says why in words the editor shows, and a released slot is free again.
 */

function slots(limits = { running: 2, perOwnerPerMinute: 6 }) {
  let now = 1_000_000;
  return {
    slots: new GuardAttackSlots(
      () => limits,
      () => now,
    ),
    tick: (ms: number) => (now += ms),
  };
}
const refused = (run: () => unknown, words: RegExp) =>
  assert.throws(run, (error) => isFencingError(error, 'rate_limited') && words.test(error.message));

test('one attack at a time per owner', () => {
  const { slots: s } = slots();
  const first = s.take('ada');
  refused(() => s.take('ada'), /^your guard is already being attacked: wait for its verdict$/);
  first.release();
  first.release();
  s.take('ada').release();
  assert.equal(s.count(), 0);
});

test('at most 6 a minute per owner, counted over the last minute', () => {
  const { slots: s, tick } = slots();
  for (let i = 0; i < 6; i++) {
    s.take('ada').release();
    tick(1_000);
  }
  refused(() => s.take('ada'), /^at most 6 attacks a minute: try again in 54 s \(your statement is kept\)$/);
  s.take('bob').release(); // another owner is not held back
  tick(54_000);
  s.take('ada').release();
});

test('at most 2 running on the server: the third is told the lab is busy, and may come back', () => {
  const { slots: s } = slots();
  const ada = s.take('ada');
  s.take('bob');
  refused(() => s.take('cy'), /^the lab is busy \(other guards are being attacked\): try again in a moment/);
  assert.equal(s.count(), 2);
  ada.release();
  s.take('cy');
  assert.equal(s.count(), 2);
});
