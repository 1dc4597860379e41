import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../../testing/histories';
import { factsFrom, walkthroughFor } from '../walkthrough/walkthrough';
import { stepReachedBy } from '../walkthrough/walkthrough-progress';
import { framedWindow, stepFrame, stepMomentEvents, stepMoments } from './timeline-frame';

const steps = walkthroughFor('fenced');
const events = recorded('fenced');
const moments = stepMoments(events, (prefix) => stepReachedBy(steps, factsFrom(prefix, 'fenced')), steps.length);
const atOf = (match: (e: (typeof events)[number]) => boolean) => events.find(match)?.at;

test("each step's moment is the event that completed it: A's first write, its freeze, B's write, A's late write", () => {
  assert.equal(moments.length, steps.length);
  assert.equal(moments[0], events[0]?.at);
  assert.equal(
    moments[1],
    atOf((e) => e.actor === 'A' && e.kind === 'write_accepted'),
  );
  assert.equal(
    moments[2],
    atOf((e) => e.actor === 'A' && e.kind === 'pause_started'),
  );
  const lateWrite = events.findLast((e) => e.actor === 'A' && e.kind === 'write_rejected');
  assert.equal(moments[5], lateWrite?.at);
  for (let i = 1; i < moments.length; i++) assert.ok((moments[i] ?? 0) >= (moments[i - 1] ?? 0));
});

test('a step not reached has no moment, and its frame is the last reached step', () => {
  const early = events.filter((e) => e.at <= (moments[2] ?? 0));
  const partial = stepMoments(early, (prefix) => stepReachedBy(steps, factsFrom(prefix, 'fenced')), steps.length);
  assert.deepEqual(partial.slice(3), [undefined, undefined, undefined, undefined]);
  assert.deepEqual(stepFrame(partial, 5), stepFrame(partial, 2));
});

test('a step frames what happened since the step before; the last step frames the whole story', () => {
  const wakes = stepFrame(moments, 5);
  assert.deepEqual(wakes, { from: moments[4], to: moments[5], untilNow: false });
  assert.deepEqual(stepFrame(moments, 6), { from: moments[0], to: moments[6], untilNow: true });
  assert.deepEqual(stepFrame(moments, 0), { from: moments[0], to: moments[0], untilNow: false });
  assert.equal(stepFrame([undefined], 0), undefined);
  // A verdict with no event of its own (the failover's last step) still frames the whole story.
  assert.deepEqual(stepFrame([...moments, undefined], 7), { from: moments[0], to: moments[6], untilNow: true });
});

test('30 s after a step its marks are still in the window, and so is now; the window grows by steps, it does not scroll', () => {
  const frame = { from: 100_000, to: 103_000, untilNow: true };
  const justAfter = framedWindow(frame, 103_500);
  assert.ok(justAfter.start < frame.from && justAfter.end > 103_500);
  const later = framedWindow(frame, 133_000);
  assert.ok(later.start < frame.from, 'the step is still in view');
  assert.ok(later.end > 133_000, 'now is in view');
  assert.deepEqual(framedWindow(frame, 133_100), later, 'between steps of the span the window stands still');
  // An earlier step, shown again (Back), fills the window on its own, however long ago it was.
  const earlier = framedWindow({ ...frame, untilNow: false }, 533_000);
  assert.ok(earlier.start < frame.from && earlier.end > frame.to && earlier.end - earlier.start <= 10_000);
});

test('a step is reached by one event: another of the same millisecond after it is not in its moment', () => {
  // A's first write and the next event recorded in the same millisecond (a busy lab does that).
  const write = events.findIndex((e) => e.actor === 'A' && e.kind === 'write_accepted');
  const same = events.map((e, i) => (i === write + 1 ? { ...e, at: events[write]?.at ?? e.at } : e));
  const reached = stepMomentEvents(same, (prefix) => stepReachedBy(steps, factsFrom(prefix, 'fenced')), steps.length);
  assert.equal(reached[1]?.id, same[write]?.id);
  assert.equal(reached[1]?.at, same[write + 1]?.at, 'the next event shares its time');
  assert.ok((same[write + 1]?.id ?? 0) > (reached[1]?.id ?? 0), 'and is cut off by id');
  assert.deepEqual(
    stepMoments(same, (prefix) => stepReachedBy(steps, factsFrom(prefix, 'fenced')), steps.length),
    reached.map((e) => e?.at),
  );
});
