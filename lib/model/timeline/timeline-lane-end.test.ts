import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import { buildTimeline, type Timeline } from './timeline';
import { describeTimeline } from './timeline-layout';

/*
 * A lane ends where its worker ends: stopped, crashed, or its lab closed. After that nothing of it
 * grows, however long the page stays open: no "believes it holds token 27" band, no "frozen" block
 * running on to now.
 */

const { at, ev } = handMade(2_000_000);
const expires = (s: number) => ({ expiresAt: new Date(at(s)).toISOString() });

/**
 * A holds token 5 until 1 s, is frozen at 0.5 s, frozen again at 0.8 s before the first freeze was
 * recorded as over (a second freeze while the first still shows open), and never finds out it lost
 * its lease. B holds token 6 from 1.2 s.
 */
const story: WireEvent[] = [
  ev(1, 0, 'A', 'worker_started'),
  ev(2, 0, 'A', 'lease_acquired', { token: 5, detail: expires(1) }),
  ev(3, 0.5, 'A', 'pause_started', { detail: { trigger: 'critical-window' } }),
  ev(4, 0.8, 'A', 'pause_started', { detail: { trigger: 'now' } }),
  ev(5, 1.2, 'B', 'worker_started'),
  ev(6, 1.2, 'B', 'lease_acquired', { token: 6, detail: expires(2.2) }),
];

/** The lanes as drawn at `now`, without the timeline's own end (which is now). */
const lanesAt = (events: readonly WireEvent[], now: number): Timeline['lanes'] => buildTimeline(events, now).lanes;

/** Every mark in words at `now`: what a trainer reads in the timeline's list. */
const wordsAt = (events: readonly WireEvent[], now: number) =>
  describeTimeline(buildTimeline(events, now), new Set()).map((mark) => `${mark.title}. ${mark.lines.join('. ')}`);

function assertEndsAt(events: readonly WireEvent[], holder: string, end: number, why: string) {
  const tenMinutesLater = at(4) + 600_000;
  const lane = lanesAt(events, tenMinutesLater).find((l) => l.holder === holder);
  assert.ok(lane, `a lane for ${holder}`);
  for (const pause of lane.pauses) {
    assert.equal(pause.open, false, `${holder}'s freeze is closed`);
    assert.ok(pause.to <= end, `${holder}'s freeze ends by ${why}, not ${pause.to - end} ms after it`);
  }
  for (const band of lane.beliefs) {
    assert.equal(band.open, false, `${holder}'s belief is closed`);
    assert.ok(band.to <= end, `${holder}'s belief ends by ${why}`);
  }
  // Nothing grows afterwards: the lane at 4 s and ten minutes later holds the same marks.
  const laneAt = (now: number) => lanesAt(events, now).find((l) => l.holder === holder);
  assert.deepEqual(laneAt(tenMinutesLater), laneAt(at(4)), `nothing of ${holder}'s grows after ${why}`);
  const words = wordsAt(events, tenMinutesLater).filter((w) => w.startsWith(`${holder} `));
  assert.ok(
    words.every((w) => !/still frozen|has not found out yet/.test(w)),
    words.join('\n'),
  );
}

describe('a lane ends where its worker ends', () => {
  test('a stopped worker: both of its freezes and its belief end at the stop', () => {
    const events = [...story, ev(7, 3, 'A', 'worker_stopped', { detail: { reason: 'the attack was over' } })];
    assertEndsAt(events, 'A', at(3), 'the stop');
    const lane = lanesAt(events, at(10)).find((l) => l.holder === 'A');
    assert.deepEqual(
      lane?.pauses.map((p) => [p.from, p.to]),
      [
        [at(0.5), at(3)],
        [at(0.8), at(3)],
      ],
    );
    assert.deepEqual(
      lane?.beliefs.map((b) => [b.from, b.to]),
      [[at(1), at(3)]],
    );
    assert.ok(
      wordsAt(events, at(10)).includes(
        `A's lease, token 5. granted at ${new Date(at(0)).toISOString().slice(11, 23)} (database time). ran out at ${new Date(at(1)).toISOString().slice(11, 23)} (the holder was stopped). renewed 0 times`,
      ),
      'a stopped holder is not said to have crashed',
    );
  });

  test('a crashed worker: both of its freezes and its belief end at the crash', () => {
    const events = [...story, ev(7, 3, 'A', 'worker_crashed', { detail: { signal: 'SIGKILL' } })];
    assertEndsAt(events, 'A', at(3), 'the crash');
  });

  test("the lab's close ends every lane still going, and draws no lane of its own", () => {
    const events = [
      ...story,
      // The server's expiry recorder: B's lease ran out while B, frozen by the operating system, said nothing.
      ev(7, 2.3, 'B', 'lease_expired', { token: 6, detail: expires(2.2) }),
      ev(8, 3, 'server', 'lab_closed', { detail: { reason: 'idle for 30 minutes' } }),
    ];
    assertEndsAt(events, 'A', at(3), "the lab's close");
    assertEndsAt(events, 'B', at(3), "the lab's close");
    assert.deepEqual(
      lanesAt(events, at(10)).map((l) => l.holder),
      ['A', 'B'],
    );
  });
});
