import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { storyHistory } from '../../testing/story-histories';
import { WORKER_LAB_IDS } from '../lab/lab-kinds';
import { factsFrom, walkthroughFor } from './walkthrough';
import { stepReachedBy } from './walkthrough-progress';

/*
 * A step once reached stays reached: as a history grows one event at a time, the count of steps it
 * reaches never goes down, in every lab's generated histories. The binary searches that find a step's
 * moment (eventsToReach, stepMoments) rest on it, and so does a trainer who saw a step done: a later
 * event must not take it back (a held write answered before B's grant, a second hold in free play
 * after the story: each took back the delayed packet's steps before its facts were fixed).
 */

const HISTORIES_PER_LAB = 300;

for (const lab of WORKER_LAB_IDS) {
  test(`${lab}: the steps reached never go down as events come`, { timeout: 60_000 }, () => {
    const steps = walkthroughFor(lab);
    fc.assert(
      fc.property(storyHistory(lab), (events) => {
        let before = 0;
        for (let n = 1; n <= events.length; n++) {
          const now = stepReachedBy(steps, factsFrom(events.slice(0, n), lab));
          assert.ok(now >= before, `step ${before + 1} reached after ${n - 1} events, only ${now + 1} after ${n}`);
          before = now;
        }
      }),
      { numRuns: HISTORIES_PER_LAB, seed: 34 },
    );
  });
}
