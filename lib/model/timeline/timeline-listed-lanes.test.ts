import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALL_LISTED_UP_TO, listedLanes } from './timeline-listed-lanes';

const laneH = 76;
const windowHeight = 720;

test('a timeline of a few lanes lists every lane, wherever the page is scrolled', () => {
  // The page scrolled 346 px past the timeline's top (the private delayed packet's failing CI run):
  // lane A was left out before.
  for (const lanesTop of [300, 0, -346, -5_000, 5_000]) {
    assert.deepEqual(listedLanes({ lanesTop, windowHeight, laneH, laneCount: 3 }), [0, 2]);
  }
  assert.deepEqual(listedLanes({ lanesTop: -346, windowHeight, laneH, laneCount: ALL_LISTED_UP_TO }), [
    0,
    ALL_LISTED_UP_TO - 1,
  ]);
});

test('a tall timeline lists the lanes on screen, give or take two', () => {
  const laneCount = 50;
  assert.deepEqual(listedLanes({ lanesTop: 0, windowHeight, laneH, laneCount }), [0, 12]);
  // 20 lanes scrolled past: lanes 18 to 32 (the window shows 20 to 29 and a part of 30).
  assert.deepEqual(listedLanes({ lanesTop: -20 * laneH, windowHeight, laneH, laneCount }), [18, 32]);
});

test('a tall timeline scrolled wholly out of the window lists its nearest lanes, never none', () => {
  const laneCount = 50;
  const [below0, below1] = listedLanes({ lanesTop: 10_000, windowHeight, laneH, laneCount });
  assert.equal(below0, 0);
  assert.ok(below1 >= below0);
  const [past0, past1] = listedLanes({ lanesTop: -100_000, windowHeight, laneH, laneCount });
  assert.deepEqual([past0, past1], [49, 49]);
});
