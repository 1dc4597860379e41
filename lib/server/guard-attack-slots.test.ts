import assert from 'node:assert/strict';
import { test } from 'node:test';
import { overrideRoomSettings } from '../config/room-settings';
import { guardShares } from './guard-attack-slots';

/*
 * The bounds on guards a trainee sends, from the settings (docs/running-a-room.md): 6 attacks and 10
 * refused statements a minute per owner by default, three times as many per address. The database
 * counts against them for the whole room (db/guard-shares.test.ts); the words are
 * lib/model/guard/guard-share.test.ts's.
 */

test('by default: 6 attacks a minute per owner (18 per address), 10 refused guards (30 per address)', () => {
  delete process.env.FENCING_LAB_GUARD_ATTACKS_PER_MINUTE;
  delete process.env.FENCING_LAB_GUARD_REFUSALS_PER_MINUTE;
  assert.deepEqual(guardShares(), {
    attacks: { perOwner: 6, perAddress: 18, windowMs: 60_000 },
    refusals: { perOwner: 10, perAddress: 30, windowMs: 60_000 },
  });
});

test('the settings raise them (a bound below 1 is refused by the one schema: lib/model/core/room-settings.test.ts)', (t) => {
  t.after(overrideRoomSettings({ guardAttacksPerMinute: 20, guardRefusalsPerMinute: 40 }));
  assert.deepEqual(guardShares(), {
    attacks: { perOwner: 20, perAddress: 60, windowMs: 60_000 },
    refusals: { perOwner: 40, perAddress: 120, windowMs: 60_000 },
  });
});
