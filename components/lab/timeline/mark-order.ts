import type { Timeline } from '@/lib/model/timeline/timeline';
import type { MarkText } from '@/lib/model/timeline/timeline-layout';

import type { Move } from './mark-neighbours';

/*
 * The list's order (describeTimeline's): lane by lane (holders, then the database), by time within
 * a lane. ←/→ step through it, so that → from the first mark reaches every mark up to the last;
 * ↑/↓ go to the nearest mark in time on the lane above/below (mark-neighbours.ts).
 */

export const MOVE_KEYS: Record<string, Move> = {
  ArrowLeft: 'previous',
  ArrowRight: 'next',
  ArrowUp: 'up',
  ArrowDown: 'down',
  Home: 'first',
  End: 'last',
};

const KIND_ORDER: Record<MarkText['kind'], number> = {
  lease: 0,
  belief: 1,
  pause: 2,
  'write-accepted': 3,
  'write-rejected': 3,
  life: 4,
  loss: 5,
  row: 6,
  lab: 7,
};

/** The row's changes and the lab's own steps are listed with the database lane, after the holders'. */
const inDatabaseLane = (m: MarkText) => m.kind === 'row' || m.kind === 'lab';

/** Marks (a layout's, in drawing order) in the list's order. */
export function inListOrder(marks: readonly MarkText[], laneIndex: ReadonlyMap<string, number>): MarkText[] {
  const lane = (m: MarkText) => (inDatabaseLane(m) ? Number.MAX_SAFE_INTEGER : (laneIndex.get(m.lane) ?? 0));
  return marks.toSorted((a, b) => lane(a) - lane(b) || a.at - b.at || KIND_ORDER[a.kind] - KIND_ORDER[b.kind]);
}

const startsBefore = <T>(items: readonly T[], at: (item: T) => number, t: number) => {
  // Items are in event order, which is time order: binary search for the first at or after t.
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at(items[mid] as T) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

/**
 * How many marks the whole timeline has, and where a mark stands among them (from 1), without
 * describing them all: a screen reader says "mark 40 of 200,000" from counts alone.
 */
export function markPositions(full: Timeline) {
  const laneCounts = full.lanes.map(
    (l) => l.leases.length + l.beliefs.length + l.pauses.length + l.writes.length + l.losses.length + l.life.length,
  );
  const offsets: number[] = [];
  let total = 0;
  for (const count of laneCounts) {
    offsets.push(total);
    total += count;
  }
  const rowOffset = total;
  total += full.row.length + full.labMarks.length;
  const laneIndex = new Map(full.lanes.map((lane, i) => [lane.holder, i]));
  return {
    total,
    /** `tie`: how many listed marks of the lane start at the same moment before this one. */
    positionOf(mark: MarkText, tie: number): number {
      if (inDatabaseLane(mark)) {
        const before = startsBefore(full.row, (c) => c.at, mark.at) + startsBefore(full.labMarks, (c) => c.at, mark.at);
        return rowOffset + before + tie + 1;
      }
      const i = laneIndex.get(mark.lane);
      const lane = i === undefined ? undefined : full.lanes[i];
      if (i === undefined || !lane) return 1;
      const before =
        startsBefore(lane.leases, (b) => b.from, mark.at) +
        startsBefore(lane.beliefs, (b) => b.from, mark.at) +
        startsBefore(lane.pauses, (p) => p.from, mark.at) +
        startsBefore(lane.writes, (w) => w.at, mark.at) +
        startsBefore(lane.losses, (l) => l.at, mark.at) +
        startsBefore(lane.life, (l) => l.at, mark.at);
      return (offsets[i] ?? 0) + before + tie + 1;
    },
  };
}
