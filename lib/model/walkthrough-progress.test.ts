import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../testing/histories';
import { factsFrom, walkthroughFor } from './walkthrough';
import { stepReachedBy } from './walkthrough-progress';
import type { WireEvent } from './wire';

const steps = walkthroughFor('fenced');
const events = recorded('fenced');
const upTo = (match: (e: WireEvent) => boolean) => {
  const last = events.find(match);
  assert.ok(last, 'the recorded run has the event');
  return factsFrom(events.filter((e) => e.id <= last.id));
};

test('a watcher of a freshly reset lab is on the first step', () => {
  assert.equal(stepReachedBy(steps, factsFrom([])), 0);
});

test("a watcher follows the run: A's first write is step 2, A's freeze step 3, the lease running out step 4", () => {
  assert.equal(
    stepReachedBy(
      steps,
      upTo((e) => e.actor === 'A' && e.kind === 'write_accepted'),
    ),
    1,
  );
  assert.equal(
    stepReachedBy(
      steps,
      upTo((e) => e.kind === 'pause_started'),
    ),
    2,
  );
  assert.equal(
    stepReachedBy(
      steps,
      upTo((e) => e.actor === 'A' && e.kind === 'lease_expired'),
    ),
    3,
  );
});

test('at the end of the run a watcher is on the last step', () => {
  assert.equal(stepReachedBy(steps, factsFrom(events)), steps.length - 1);
});

test('a step whose event came without the ones before it does not skip ahead', () => {
  // B wrote, but A never did: the story has not reached step 2, whatever happened later.
  const bOnly = events.filter((e) => e.actor !== 'A');
  assert.equal(stepReachedBy(steps, factsFrom(bOnly)), 0);
});
