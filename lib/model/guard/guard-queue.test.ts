import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_ATTACK_SECONDS, ordinal, type QueueFacts, queuePlace } from './guard-queue';

const facts = (over: Partial<QueueFacts>): QueueFacts => ({
  running: false,
  runningForSeconds: 0,
  ahead: 0,
  runningNow: 0,
  held: 0,
  slots: 4,
  typicalSeconds: 10,
  ...over,
});

test('a waiting guard: its place after the jobs ahead, in waves of the free slots', () => {
  assert.deepEqual(queuePlace(facts({})), { place: 1, estimateSeconds: 10 });
  // 2 ahead and 3 running on 4 slots: the second wave.
  assert.deepEqual(queuePlace(facts({ ahead: 2, runningNow: 3 })), { place: 3, estimateSeconds: 20 });
  assert.deepEqual(queuePlace(facts({ typicalSeconds: undefined })).estimateSeconds, DEFAULT_ATTACK_SECONDS);
});

test("slots a sweep's busy queues hold are not the line's: it moves through the others", () => {
  // 4 slots, 2 held by a sweep's runs under way, 2 more jobs running, 3 ahead: (3 + 2) / 2 → the third wave.
  assert.deepEqual(queuePlace(facts({ ahead: 3, runningNow: 4, held: 2 })), { place: 4, estimateSeconds: 30 });
  // Every slot held: one at a time at best, never a division by nothing.
  assert.equal(queuePlace(facts({ ahead: 5, runningNow: 4, held: 4 })).estimateSeconds, 60);
});

test('a guard under attack: the time a typical attack has left, at least a second', () => {
  assert.deepEqual(queuePlace(facts({ running: true, runningForSeconds: 4 })), { place: 0, estimateSeconds: 6 });
  assert.equal(queuePlace(facts({ running: true, runningForSeconds: 30 })).estimateSeconds, 1);
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21].map(ordinal), [
    '1st',
    '2nd',
    '3rd',
    '4th',
    '11th',
    '12th',
    '13th',
    '21st',
  ]);
});
