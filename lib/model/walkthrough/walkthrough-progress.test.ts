import assert from 'node:assert/strict';
import { test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import { factsFrom, walkthroughFor } from './walkthrough';
import { deepLinkedStep } from './walkthrough-deep-link';
import { eventsToReach, factsAtStep, stepReachedBy, stepsToReach, walkthroughPosition } from './walkthrough-progress';

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

const { ev } = handMade(Date.parse('2026-11-30T10:00:00Z'));
const startA = ev(1, 0, 'A', 'worker_started', { detail: { name: 'A' } });
const writeA = ev(3, 0.5, 'A', 'write_accepted', { token: 7, detail: { value: 'A-1' } });
const grantA = ev(2, 0.2, 'A', 'lease_acquired', { token: 7 });

test('a lab with no history (just reset, or never used) is at the first step', () => {
  assert.deepEqual(walkthroughPosition(steps, []), { kind: 'at', step: 0, facts: {} });
});

test('a reloaded page finds the step of the recorded run at each of its events', () => {
  const at = events.map((e) => {
    const position = walkthroughPosition(
      steps,
      events.filter((x) => x.id <= e.id),
    );
    assert.equal(position.kind, 'at', `at event ${e.id}`);
    return position.kind === 'at' ? position.step : -1;
  });
  // Never backwards, and every step from the first to the last on the way.
  assert.deepEqual(
    at.toSorted((a, b) => a - b),
    at,
  );
  assert.deepEqual([...new Set(at)], [0, 1, 2, 3, 4, 6]);
});

test('free play with a worker of another name is off script: the walkthrough would begin with a reset', () => {
  const z = ev(1, 0, 'Z', 'worker_started', { detail: { name: 'Z' } });
  const position = walkthroughPosition(steps, [z]);
  assert.equal(position.kind, 'off-script');
  assert.deepEqual(stepsToReach(position, 2), [0, 1, 2]);
});

test('B running alongside A before A froze is off script', () => {
  const startB = ev(4, 0.6, 'B', 'worker_started', { detail: { name: 'B' } });
  assert.equal(walkthroughPosition(steps, [startA, grantA, writeA, startB]).kind, 'off-script');
});

test("a pause given to A by hand is not the walkthrough's freeze, nor is a lease that ran out during it", () => {
  const handPause = ev(4, 1, 'A', 'pause_started', { detail: { trigger: 'now', belief: 'I hold token 7' } });
  const expired = ev(5, 3.2, 'A', 'lease_expired', { detail: { expiresAt: '2026-11-30T10:00:03.200Z' } });
  const resumed = ev(6, 4, 'A', 'pause_ended', { detail: {} });
  const history = [startA, grantA, writeA, handPause, expired, resumed];
  assert.deepEqual(walkthroughPosition(steps, history), { kind: 'at', step: 1, facts: factsFrom(history) });
  const freeze = ev(7, 5, 'A', 'pause_started', { detail: { trigger: 'critical-window', belief: 'I hold token 8' } });
  const position = walkthroughPosition(steps, [...history, freeze]);
  assert.equal(position.kind === 'at' && position.step, 2);
  assert.equal(position.facts.pauseA, freeze);
});

test('a deep link runs the steps from where the lab is up to its own, and none when the lab is there or past it', () => {
  const pause = events.find((e) => e.kind === 'pause_started');
  const atTwo = walkthroughPosition(
    steps,
    events.filter((e) => pause && e.id <= pause.id),
  );
  assert.equal(atTwo.kind === 'at' && atTwo.step, 2);
  assert.deepEqual(stepsToReach(atTwo, 4), [3, 4]);
  assert.deepEqual(stepsToReach(atTwo, 2), []);
  assert.deepEqual(stepsToReach(atTwo, 0), []);
  assert.deepEqual(stepsToReach(walkthroughPosition(steps, []), 0), []);
  assert.deepEqual(stepsToReach(walkthroughPosition(steps, []), 6), [1, 2, 3, 4, 5, 6]);
});

test('a deep link names a step from 1; past the last it is the last, and anything else is no deep link', () => {
  assert.equal(deepLinkedStep('1', 7), 0);
  assert.equal(deepLinkedStep('5', 7), 4);
  assert.equal(deepLinkedStep('99', 7), 6);
  for (const raw of [undefined, '', '0', '-2', '2.5', 'abc', '3; DROP', ['2', '3']]) {
    assert.equal(deepLinkedStep(raw, 7), undefined, String(raw));
  }
});

test("the drifting clock's position: B joins once A holds the lease, and the run ends on the last step", () => {
  const drift = walkthroughFor('drifting-clock');
  const run = recorded('drifting-clock');
  assert.deepEqual(walkthroughPosition(drift, run, 'drifting-clock'), {
    kind: 'at',
    step: drift.length - 1,
    facts: factsFrom(run, 'drifting-clock'),
  });
  const startB = run.find((e) => e.actor === 'B' && e.kind === 'worker_started') as WireEvent;
  const early = { ...startB, id: 0 };
  assert.deepEqual(walkthroughPosition(drift, [early, ...run.filter((e) => e !== startB)], 'drifting-clock'), {
    kind: 'off-script',
    why: 'B started before A held the lease',
    facts: factsFrom([early, ...run.filter((e) => e !== startB)], 'drifting-clock'),
  });
  // The pause story's rule would call B's start off script: it came before any freeze.
  assert.equal(walkthroughPosition(walkthroughFor('no-fencing'), run).kind, 'off-script');
});

test("the delayed packet's position: B joins once A's lease has run out while its write was held", () => {
  const steps = walkthroughFor('delayed-packet');
  const run = recorded('delayed-packet');
  assert.deepEqual(walkthroughPosition(steps, run, 'delayed-packet'), {
    kind: 'at',
    step: steps.length - 1,
    facts: factsFrom(run, 'delayed-packet'),
  });
  const startB = run.find((e) => e.actor === 'B' && e.kind === 'worker_started') as WireEvent;
  const early = { ...startB, id: 0 };
  const moved = [early, ...run.filter((e) => e !== startB)];
  assert.equal(walkthroughPosition(steps, moved, 'delayed-packet').kind, 'off-script');
  assert.equal(
    (walkthroughPosition(steps, moved, 'delayed-packet') as { why: string }).why,
    "B started before A's lease ran out",
  );
});

test('a step the lab has gone past is told as of its moment: its facts end with the event that reached it', () => {
  const drift = recorded('drifting-clock');
  const story = walkthroughFor('drifting-clock');
  // At the end of the run B has taken over; step 2 ("B waits") is told as it was when it was reached.
  const atStep2 = factsAtStep(story, drift, 1, 'drifting-clock');
  assert.equal(atStep2.grantB, undefined, 'B had no grant at step 2');
  assert.match(
    story[1]?.narrate(atStep2) ?? '',
    /B started too; it asked for the lease .*and was told that A held it\./,
  );
  assert.equal(atStep2.startB?.id, 26);
  // The latest step is live: all the events.
  const last = story.length - 1;
  assert.equal(
    factsAtStep(story, drift, last, 'drifting-clock').lateWriteA?.id,
    factsFrom(drift, 'drifting-clock').lateWriteA?.id,
  );
  // The step reached together with the last (the same events reach both) is live too.
  const fenced = recorded('fenced');
  const pause = walkthroughFor('fenced');
  assert.equal(eventsToReach(pause, fenced, 5, 'fenced'), eventsToReach(pause, fenced, 6, 'fenced'));
  assert.ok(
    factsAtStep(pause, fenced, 5, 'fenced').lostA,
    "A's lease_lost, after the late write, is in step 6's words",
  );
});
