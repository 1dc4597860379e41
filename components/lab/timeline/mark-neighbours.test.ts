import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WireEvent } from '@/lib/model/core/wire';
import { buildTimeline, type Timeline } from '@/lib/model/timeline/timeline';
import { describeTimeline, type MarkText } from '@/lib/model/timeline/timeline-layout';
import { recorded } from '@/lib/testing/histories';
import { type Move, neighbour } from './mark-neighbours';

/*
 * The keyboard's moves, found by binary search, against the list a screen reader reads
 * (describeTimeline): → from the first mark walks that list exactly, ← walks it back.
 */

const none: ReadonlySet<number> = new Set();

function walk(timeline: Timeline, start: Move, step: Move): string[] {
  const keys: string[] = [];
  let here: MarkText | undefined = neighbour(timeline, undefined, start, none);
  while (here && keys.length < 100_000) {
    keys.push(here.key);
    here = neighbour(timeline, here, step, none);
  }
  return keys;
}

// The failover lab's: its cluster's steps are listed with the database lane, its row goes back at the promotion.
for (const name of ['fenced', 'no-fencing', 'token-as-text', 'failover'] as const) {
  test(`${name}: → from Home reaches every mark in the list's order, ← from End the same backwards`, () => {
    const events = recorded(name);
    const timeline = buildTimeline(events, (events.at(-1)?.at ?? 0) + 500);
    const listed = describeTimeline(timeline, none).map((m) => m.key);
    assert.ok(listed.length > 10);
    assert.deepEqual(walk(timeline, 'first', 'next'), listed);
    assert.deepEqual(walk(timeline, 'last', 'previous'), listed.toReversed());
  });
}

test('marks at the same moment on one lane are each reached once, in the list order', () => {
  const at = 1_000_000;
  const ev = (id: number, kind: string, extra: Partial<WireEvent> = {}): WireEvent =>
    ({ id, lab: 'fenced', at, actor: 'A', kind, detail: {}, ...extra }) as WireEvent;
  const events = [
    ev(1, 'worker_started'),
    ev(2, 'lease_acquired', { token: 1, detail: { expiresAt: new Date(at + 3000).toISOString() } }),
    ev(3, 'write_accepted', { token: 1, detail: { value: 'A-1' } }),
    ev(4, 'write_accepted', { token: 1, detail: { value: 'A-2' } }),
    ev(5, 'pause_started', { detail: { trigger: 'now' } }),
  ];
  const timeline = buildTimeline(events, at + 5000);
  const listed = describeTimeline(timeline, none).map((m) => m.key);
  assert.deepEqual(walk(timeline, 'first', 'next'), listed);
  assert.deepEqual(walk(timeline, 'last', 'previous'), listed.toReversed());
});

test('↑ and ↓ go to the nearest mark in time on the lane above or below', () => {
  const events = recorded('fenced');
  const timeline = buildTimeline(events, (events.at(-1)?.at ?? 0) + 500);
  const marks = describeTimeline(timeline, none);
  const lanes = [...new Set(marks.map((m) => m.lane))];
  assert.ok(lanes.length >= 3, 'two holders and the database');
  for (const mark of marks) {
    const i = lanes.indexOf(mark.lane);
    for (const [move, j] of [
      ['up', i - 1],
      ['down', i + 1],
    ] as const) {
      const target = neighbour(timeline, mark, move, none);
      const lane = lanes[j];
      if (lane === undefined) {
        assert.equal(target, undefined);
        continue;
      }
      assert.equal(target?.lane, lane);
      const best = Math.min(...marks.filter((m) => m.lane === lane).map((m) => Math.abs(m.at - mark.at)));
      assert.equal(Math.abs((target?.at ?? 0) - mark.at), best);
    }
  }
});
