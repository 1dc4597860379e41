import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../../testing/histories';
import { runSteps } from '../history/history-diff';
import { buildTimeline } from './timeline';
import { describeTimeline } from './timeline-layout';
import { markKeyOfEvent } from './timeline-layout-words';

/*
 * One mark key per event, from the timeline's own model (markKeyOfEvent): every step /compare can
 * name as the first difference selects a mark the timeline really lists, expiries, wake-ups,
 * releases and the lab's own steps included; only a lab's close draws none.
 */

const HISTORIES = ['fenced', 'no-fencing', 'same-token-takeover', 'drifting-clock', 'failover'] as const;

test('every step of a run selects a mark the timeline lists, except a lab’s close', () => {
  const seen = new Set<string>();
  for (const name of HISTORIES) {
    const events = recorded(name);
    const timeline = buildTimeline(events, events.at(-1)?.at ?? 0);
    const keys = new Set(describeTimeline(timeline, new Set()).map((mark) => mark.key));
    for (const steps of runSteps(events).values()) {
      for (const step of steps) {
        const event = events.find((e) => e.id === step.eventId);
        assert.ok(event);
        const key = markKeyOfEvent(timeline, event);
        if (event.kind === 'lab_closed') {
          assert.equal(key, undefined, `${name}: a lab's close draws no mark`);
          continue;
        }
        assert.ok(key && keys.has(key), `${name}: ${step.words} (${event.kind}) selects ${key}`);
        seen.add(event.kind);
      }
    }
  }
  for (const kind of ['lease_expired', 'pause_ended', 'lease_acquired', 'write_rejected', 'worker_started']) {
    assert.ok(seen.has(kind), `the histories include a ${kind} step`);
  }
});

test('an expiry or a release selects the lease bar it ended, a wake-up the freeze it ended', () => {
  const events = recorded('fenced');
  const timeline = buildTimeline(events, events.at(-1)?.at ?? 0);
  const expiry = events.find((e) => e.kind === 'lease_expired');
  assert.ok(expiry);
  const grant = events.findLast((e) => e.kind === 'lease_acquired' && e.token === expiry.token && e.id < expiry.id);
  assert.equal(markKeyOfEvent(timeline, expiry), `lease:${grant?.actor}:${grant?.id}`);
  const woke = events.find((e) => e.kind === 'pause_ended');
  assert.ok(woke);
  const froze = events.findLast((e) => e.kind === 'pause_started' && e.actor === woke.actor && e.id < woke.id);
  assert.equal(markKeyOfEvent(timeline, woke), `pause:${froze?.id}`);
  const renewal = events.find((e) => e.kind === 'lease_renewed');
  if (renewal) assert.equal(markKeyOfEvent(timeline, renewal), undefined, 'a renewal draws no mark');
  const release = { id: (events.at(-1)?.id ?? 0) + 1, kind: 'lease_released', actor: grant?.actor ?? 'A' };
  assert.match(String(markKeyOfEvent(timeline, release)), /^lease:/);
});
