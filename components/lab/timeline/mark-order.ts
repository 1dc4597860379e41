import type { Timeline } from '@/lib/model/timeline';
import type { MarkText } from '@/lib/model/timeline-layout';

/*
 * The order a keyboard walks the marks in, which is the list's order (describeTimeline's): lane by
 * lane (holders, then the database), and by time within a lane. ←/→ step through that order, so
 * that → from the first mark reaches every mark up to the last; ↑/↓ go to the nearest mark in time
 * on the lane above/below.
 */

export type Move = 'previous' | 'next' | 'up' | 'down' | 'first' | 'last';

export const MOVE_KEYS: Record<string, Move> = {
  ArrowLeft: 'previous',
  ArrowRight: 'next',
  ArrowUp: 'up',
  ArrowDown: 'down',
  Home: 'first',
  End: 'last',
};

/** The mark a move leads to from `from` (undefined: none, or no move from there). */
export function moveIn(marks: readonly MarkText[], from: string | undefined, move: Move): MarkText | undefined {
  if (marks.length === 0) return undefined;
  if (move === 'first') return marks[0];
  if (move === 'last') return marks.at(-1);
  const index = from === undefined ? -1 : marks.findIndex((m) => m.key === from);
  if (index === -1) return marks[0];
  const here = marks[index] as MarkText;
  if (move === 'previous') return marks[index - 1];
  if (move === 'next') return marks[index + 1];
  // The nearest mark in time on the next lane (in that direction) that has any.
  const step = move === 'up' ? -1 : 1;
  let lane: string | undefined;
  let best: MarkText | undefined;
  for (let i = index + step; i >= 0 && i < marks.length; i += step) {
    const mark = marks[i] as MarkText;
    if (mark.lane === here.lane) continue;
    if (lane === undefined) lane = mark.lane;
    if (mark.lane !== lane) break;
    if (!best || Math.abs(mark.at - here.at) < Math.abs(best.at - here.at)) best = mark;
  }
  return best;
}

/**
 * Whether a move within the drawn stretch's marks gives the same answer as within the whole
 * timeline's: a step to the neighbour on the same lane, both starting inside the stretch (every mark
 * starting between them overlaps the stretch, so it is in the list too).
 */
export function stretchAnswers(
  listed: readonly MarkText[],
  from: string | undefined,
  target: MarkText | undefined,
  stretchFrom: number,
): boolean {
  const here = listed.find((m) => m.key === from);
  return !!here && !!target && target.lane === here.lane && here.at >= stretchFrom && target.at >= stretchFrom;
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
  total += full.row.length;
  const laneIndex = new Map(full.lanes.map((lane, i) => [lane.holder, i]));
  return {
    total,
    /** `tie`: how many listed marks of the lane start at the same moment before this one. */
    positionOf(mark: MarkText, tie: number): number {
      if (mark.kind === 'row') {
        return rowOffset + startsBefore(full.row, (c) => c.at, mark.at) + tie + 1;
      }
      const i = laneIndex.get(mark.lane);
      const lane = i === undefined ? undefined : full.lanes[i];
      if (i === undefined || !lane) return 1;
      const before =
        startsBefore(lane.leases, (b) => b.from, mark.at) +
        lane.beliefs.filter((b) => b.from < mark.at).length +
        startsBefore(lane.pauses, (p) => p.from, mark.at) +
        startsBefore(lane.writes, (w) => w.at, mark.at) +
        startsBefore(lane.losses, (l) => l.at, mark.at) +
        startsBefore(lane.life, (l) => l.at, mark.at);
      return (offsets[i] ?? 0) + before + tie + 1;
    },
  };
}
