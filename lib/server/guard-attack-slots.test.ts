import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFencingError } from '../model/core/errors';
import { GuardAttackSlots } from './guard-attack-slots';

/*
 * The server's bounds on guards sent to the line of attacks: a few a minute per owner and per address;
 * each refusal says why in words the editor shows. One in line per owner is the database's
 * (db/guard-queue.test.ts), how many run at once the job runner's.
 */

function slots(limits = { perOwnerPerMinute: 6 }) {
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

test('at most 6 a minute per owner, counted over the last minute', () => {
  const { slots: s, tick } = slots();
  for (let i = 0; i < 6; i++) {
    s.take('ada');
    tick(1_000);
  }
  refused(() => s.take('ada'), /^at most 6 attacks a minute: try again in 54 s \(your statement is kept\)$/);
  s.take('bob'); // another owner is not held back
  tick(54_000);
  s.take('ada');
});

test('attacks a minute are counted per address too (three people behind one router)', () => {
  const { slots: s, tick } = slots();
  for (let i = 0; i < 18; i++) {
    s.take(`cookie-${i}`, '10.0.0.9');
    tick(1_000);
  }
  refused(() => s.take('cookie-new', '10.0.0.9'), /^at most 18 attacks a minute from your address: try again in 42 s/);
  s.take('elsewhere', '10.0.0.3');
});

test('refused statements: at most 10 a minute per owner and 30 per address, then told when to come back', () => {
  const { slots: s, tick } = slots();
  for (let i = 0; i < 10; i++) s.takeRefusal('ada', '10.0.0.1');
  refused(() => s.takeRefusal('ada', '10.0.0.1'), /^at most 10 refused guards a minute: try again in 60 s/);
  for (let i = 0; i < 20; i++) s.takeRefusal(`cookie-${i % 2}`, '10.0.0.1');
  refused(() => s.takeRefusal('cookie-9', '10.0.0.1'), /^at most 30 refused guards a minute from your address/);
  s.takeRefusal('bob', '10.0.0.2');
  tick(60_001);
  s.takeRefusal('ada', '10.0.0.1');
});
