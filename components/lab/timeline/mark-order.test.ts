import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTimeline } from '@/lib/model/timeline/timeline';
import { describeTimeline, layoutTimeline, SCREEN_METRICS } from '@/lib/model/timeline/timeline-layout';
import { recorded } from '@/lib/testing/histories';
import { inListOrder, markPositions } from './mark-order';

/*
 * What a screen reader says of a mark ("12 of 40") comes from counts, not from the whole timeline
 * in words: it must still be the mark's place in describeTimeline's list. And a layout's marks,
 * put in the list's order, come in that list's order.
 */

const none: ReadonlySet<number> = new Set();

// The failover lab's: its cluster's steps are listed with the database lane, its row goes back at the promotion.
for (const name of ['fenced', 'no-fencing', 'token-as-text', 'failover'] as const) {
  const events = recorded(name);
  const end = (events.at(-1)?.at ?? 0) + 500;
  const timeline = buildTimeline(events, end);
  const listed = describeTimeline(timeline, none);

  test(`${name}: every mark's position and the set's size are its place in the list`, () => {
    const positions = markPositions(timeline);
    assert.equal(positions.total, listed.length);
    listed.forEach((mark, i) => {
      let tie = 0;
      for (let j = i - 1; j >= 0 && listed[j]?.lane === mark.lane && listed[j]?.at === mark.at; j--) tie++;
      assert.equal(positions.positionOf(mark, tie), i + 1, mark.key);
    });
  });

  test(`${name}: a layout's marks in the list's order are the list's`, () => {
    const laneIndex = new Map(timeline.lanes.map((lane, i) => [lane.holder, i]));
    const layout = layoutTimeline(timeline, {
      from: timeline.from - 1,
      to: end,
      width: 1280,
      metrics: SCREEN_METRICS,
      origin: timeline.from,
      until: end,
      flagged: none,
    });
    assert.deepEqual(
      inListOrder(layout.marks, laneIndex).map((m) => m.key),
      listed.map((m) => m.key),
    );
  });
}
