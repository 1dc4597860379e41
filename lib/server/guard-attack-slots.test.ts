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
  const ada = s.take('ada', '10.0.0.1');
  s.take('bob', '10.0.0.2');
  refused(
    () => s.take('cy', '10.0.0.3'),
    /^the lab is busy \(other guards are being attacked\): try again in a moment/,
  );
  assert.equal(s.count(), 2);
  ada.release();
  s.take('cy', '10.0.0.3');
  assert.equal(s.count(), 2);
});

test('two cookies from one address never hold every slot: a trainee at another address is served', () => {
  const { slots: s } = slots();
  const first = s.take('cookie-1', '10.0.0.9');
  refused(() => s.take('cookie-2', '10.0.0.9'), /^another guard from your address is being attacked/);
  s.take('third-trainee', '10.0.0.3');
  assert.equal(s.count(), 2);
  first.release();
  s.take('cookie-2', '10.0.0.9');
});

test('attacks a minute are counted per address too (three people behind one router)', () => {
  const { slots: s, tick } = slots();
  for (let i = 0; i < 18; i++) {
    s.take(`cookie-${i}`, '10.0.0.9').release();
    tick(1_000);
  }
  refused(() => s.take('cookie-new', '10.0.0.9'), /^at most 18 attacks a minute from your address: try again in 42 s/);
  s.take('elsewhere', '10.0.0.3').release();
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
