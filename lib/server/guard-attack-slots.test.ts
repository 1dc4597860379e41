import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { guardShares } from './guard-attack-slots';

/*
 * The bounds on guards a trainee sends, from the settings (docs/running-a-room.md): 6 attacks and 10
 * refused statements a minute per owner by default, three times as many per address. The database
 * counts against them for the whole room (db/guard-shares.test.ts); the words are
 * lib/model/guard/guard-share.test.ts's.
 */

const NAMES = ['FENCING_LAB_GUARD_ATTACKS_PER_MINUTE', 'FENCING_LAB_GUARD_REFUSALS_PER_MINUTE'] as const;
const before = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of NAMES) {
    if (before[name] === undefined) delete process.env[name];
    else process.env[name] = before[name];
  }
});

test('by default: 6 attacks a minute per owner (18 per address), 10 refused guards (30 per address)', () => {
  for (const name of NAMES) delete process.env[name];
  assert.deepEqual(guardShares(), {
    attacks: { perOwner: 6, perAddress: 18, windowMs: 60_000 },
    refusals: { perOwner: 10, perAddress: 30, windowMs: 60_000 },
  });
});

test('the settings raise them, read at each submission; a bound below 1 is refused in words', () => {
  process.env.FENCING_LAB_GUARD_ATTACKS_PER_MINUTE = '20';
  process.env.FENCING_LAB_GUARD_REFUSALS_PER_MINUTE = '40';
  assert.deepEqual(guardShares(), {
    attacks: { perOwner: 20, perAddress: 60, windowMs: 60_000 },
    refusals: { perOwner: 40, perAddress: 120, windowMs: 60_000 },
  });
  process.env.FENCING_LAB_GUARD_ATTACKS_PER_MINUTE = '0';
  assert.throws(guardShares, /FENCING_LAB_GUARD_ATTACKS_PER_MINUTE must be a whole number from 1/);
});
