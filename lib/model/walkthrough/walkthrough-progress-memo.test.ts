import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { recorded } from '../../testing/histories';
import { storyHistory } from '../../testing/story-histories';
import type { WireEvent } from '../core/wire';
import { type LabId, WORKER_LAB_IDS } from '../lab/lab-kinds';
import { type Facts, factsFrom, type Step, walkthroughFor } from './walkthrough';
import { eventsToReach, factsAtStep, stepReachedBy } from './walkthrough-progress';

/*
 * factsAtStep remembers, per history, when each step was reached: it must answer exactly as the
 * plain reading does (every factsFrom pass again), as a page's history grows one event at a time,
 * and when a history is replaced (a reset) or an event is put in before the end.
 */

/** factsAtStep as it was before it remembered anything: 2·log n + 2 readings of the events per call. */
function plainFactsAtStep(steps: readonly Step[], events: readonly WireEvent[], index: number, lab?: LabId): Facts {
  const reachedNow = stepReachedBy(steps, factsFrom(events, lab));
  if (index >= reachedNow) return factsFrom(events, lab);
  const end = eventsToReach(steps, events, index, lab);
  const latest = eventsToReach(steps, events, reachedNow, lab);
  return end < latest ? factsFrom(events.slice(0, end), lab) : factsFrom(events, lab);
}

/**
 * Whether the steps reached only grow as the history does, the binary search's premise (eventsToReach).
 * Every lab's generated histories keep it (walkthrough-monotone.test.ts); a history with an event moved
 * before the end may not, and there the remembered answer (the first moment the step was reached as
 * the events came) and the plain one may differ: the property holds the two equal wherever it holds.
 */
function growsOnly(lab: LabId, steps: readonly Step[], events: readonly WireEvent[]): boolean {
  let before = 0;
  for (let n = 1; n <= events.length; n++) {
    const now = stepReachedBy(steps, factsFrom(events.slice(0, n), lab));
    if (now < before) return false;
    before = now;
  }
  return true;
}

/** Every step's facts at every length of `events`, as a page receiving them one by one asks. */
function sameAtEveryMoment(lab: LabId, steps: readonly Step[], events: readonly WireEvent[]) {
  for (let n = 0; n <= events.length; n++) {
    const moment = events.slice(0, n);
    for (let index = 0; index < steps.length; index++) {
      assert.deepEqual(
        factsAtStep(steps, moment, index, lab),
        plainFactsAtStep(steps, moment, index, lab),
        `${lab}, step ${index + 1}, after ${n} events`,
      );
    }
  }
}

for (const lab of WORKER_LAB_IDS) {
  test(`${lab}: the remembered facts of each step are the plain reading's, at every moment of generated histories`, () => {
    const steps = walkthroughFor(lab);
    fc.assert(
      fc.property(storyHistory(lab), storyHistory(lab), (first, second) => {
        fc.pre(growsOnly(lab, steps, first) && growsOnly(lab, steps, second));
        sameAtEveryMoment(lab, steps, first);
        // Another history with the same steps (a reset): nothing of the first is remembered for it.
        sameAtEveryMoment(lab, steps, second);
        // An event put in before the end: the history no longer grows from what was remembered.
        if (
          second.length > 2 &&
          growsOnly(lab, steps, [...second.slice(1, -1), second[0] as WireEvent, ...second.slice(-1)])
        ) {
          const [head, ...rest] = second;
          const moved = [...rest.slice(0, -1), head as WireEvent, ...rest.slice(-1)];
          for (let index = 0; index < steps.length; index++)
            assert.deepEqual(
              factsAtStep(steps, moved, index, lab),
              plainFactsAtStep(steps, moved, index, lab),
              `${lab}, step ${index + 1}, an event moved`,
            );
        }
      }),
      { numRuns: 25, seed: 34, maxSkipsPerRun: 1_000 },
    );
  });
}

test('the recorded runs: the same facts at every moment, and a later call on the same history reads nothing again', () => {
  for (const lab of ['fenced', 'drifting-clock', 'delayed-packet-unfenced'] as const) {
    const steps = walkthroughFor(lab);
    const events = recorded(lab);
    sameAtEveryMoment(lab, steps, events);
    // Asked twice of the same history, the same facts object: remembered, not read again.
    assert.equal(factsAtStep(steps, events, 1, lab), factsAtStep(steps, events, 1, lab));
  }
});
