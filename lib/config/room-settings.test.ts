import assert from 'node:assert/strict';
import { test } from 'node:test';
import { overrideRoomSettings, roomSettings } from './room-settings';

/*
 * The room's settings, read once (issue 37): the object every module takes is the one schema's
 * (lib/model/core/room-settings.ts), read from the environment on first use, then kept. A setting npm
 * start would refuse fails the first read with the same words: never a default in its place.
 */

test('read once from the environment: a value it cannot use is refused by name, never replaced by its default', () => {
  process.env.FENCING_LAB_MAX_FEEDS = 'lots';
  assert.throws(roomSettings, /FENCING_LAB_MAX_FEEDS must be a whole number from 1 to 999999 \(got "lots"\)/);
  process.env.FENCING_LAB_MAX_FEEDS = '50';
  process.env.FENCING_LAB_IDLE_MINUTES = '0.5';
  const first = roomSettings();
  assert.equal(first.maxFeeds, 50);
  assert.equal(first.idleMinutes, 0.5);
  process.env.FENCING_LAB_MAX_FEEDS = '60';
  assert.equal(roomSettings(), first, 'the same object, read once: a later change of the environment is not seen');
  const restore = overrideRoomSettings({ maxFeeds: 3 });
  assert.equal(roomSettings().maxFeeds, 3, "a test's own limit");
  assert.equal(roomSettings().idleMinutes, 0.5);
  restore();
  assert.equal(roomSettings().maxFeeds, 50);
});
