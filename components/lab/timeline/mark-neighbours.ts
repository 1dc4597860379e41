import type { Timeline } from '@/lib/model/timeline/timeline';
import { labMarkKey } from '@/lib/model/timeline/timeline-lab-words';
import type { MarkText } from '@/lib/model/timeline/timeline-layout';
import {
  beliefKey,
  describeBelief,
  describeLabMark,
  describeLease,
  describeLife,
  describeLoss,
  describePause,
  describeRowChange,
  describeWrite,
  leaseKey,
  lifeKey,
  lossKey,
  pauseKey,
  rowKey,
  writeKey,
} from '@/lib/model/timeline/timeline-layout-words';

/*
 * The keyboard's moves over the whole timeline, found by binary search in the model's time-ordered
 * lists, so that a history of 200,000 events is never put into words whole: only the mark moved to
 * is described. The order is describeTimeline's (the list's): lane by lane (holders, then the
 * database), within a lane by time, and at the same moment leases, beliefs, pauses, writes, life
 * events, losses (in the database lane: the row's changes, then the lab's own steps).
 */

export type Move = 'previous' | 'next' | 'up' | 'down' | 'first' | 'last';

/** A mark's place: its lane (the database's is `lanes.length`), its kind's list, its index in it. */
type Place = { lane: number; kind: number; index: number };

type Start = { from: number } | { at: number };
const startOf = (item: Start) => ('from' in item ? item.from : item.at);

const KIND_OF: Record<MarkText['kind'], number> = {
  lease: 0,
  belief: 1,
  pause: 2,
  'write-accepted': 3,
  'write-rejected': 3,
  life: 4,
  loss: 5,
  row: 0,
  lab: 1,
};

function listsOf(timeline: Timeline, lane: number): ReadonlyArray<readonly Start[]> {
  const holder = timeline.lanes[lane];
  // The database lane lists the row's changes, then the lab's own steps.
  if (!holder) return lane === timeline.lanes.length ? [timeline.row, timeline.labMarks] : [];
  return [holder.leases, holder.beliefs, holder.pauses, holder.writes, holder.life, holder.losses];
}

/** The first index whose start is ≥ t (or > t with `strict`). */
function bound(list: readonly Start[], t: number, strict: boolean): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const s = startOf(list[mid] as Start);
    if (s < t || (strict && s === t)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const laneCount = (timeline: Timeline) => timeline.lanes.length + 1;

function keyOf(timeline: Timeline, { lane, kind, index }: Place): string {
  const holder = timeline.lanes[lane];
  if (!holder) {
    return kind === 1
      ? labMarkKey(timeline.labMarks[index] as Timeline['labMarks'][number])
      : rowKey(timeline.row[index] as Timeline['row'][number]);
  }
  switch (kind) {
    case 0:
      return leaseKey(holder.holder, holder.leases[index] as never);
    case 1: {
      const band = holder.beliefs[index] as Timeline['lanes'][number]['beliefs'][number];
      return beliefKey(holder.holder, band.token, band.from);
    }
    case 2:
      return pauseKey(holder.pauses[index] as never);
    case 3:
      return writeKey(holder.writes[index] as never);
    case 4:
      return lifeKey(holder.life[index] as never);
    default:
      return lossKey(holder.losses[index] as never);
  }
}

export function describePlace(timeline: Timeline, place: Place, flagged: ReadonlySet<number>): MarkText {
  const { lane, kind, index } = place;
  const holder = timeline.lanes[lane];
  if (!holder && kind === 1) return describeLabMark(timeline.labMarks[index] as Timeline['labMarks'][number], flagged);
  if (!holder) {
    const change = timeline.row[index] as Timeline['row'][number];
    return describeRowChange(change, timeline.row[index + 1], flagged);
  }
  const who = holder.holder;
  switch (kind) {
    case 0:
      return describeLease(who, holder.leases[index] as never, flagged);
    case 1:
      return describeBelief(who, holder.beliefs[index] as never);
    case 2:
      return describePause(who, holder.pauses[index] as never, flagged);
    case 3:
      return describeWrite(who, holder.writes[index] as never, flagged);
    case 4:
      return describeLife(who, holder.life[index] as never, flagged);
    default:
      return describeLoss(who, holder.losses[index] as never, flagged);
  }
}

/** Where a described mark is in the model (undefined: it is no longer there). */
function placeOf(timeline: Timeline, mark: MarkText): Place | undefined {
  const lane =
    mark.kind === 'row' || mark.kind === 'lab'
      ? timeline.lanes.length
      : timeline.lanes.findIndex((l) => l.holder === mark.lane);
  if (lane === -1) return undefined;
  const kind = KIND_OF[mark.kind];
  const list = listsOf(timeline, lane)[kind] ?? [];
  for (let index = bound(list, mark.at, false); index < list.length; index++) {
    if (startOf(list[index] as Start) !== mark.at) break;
    const place = { lane, kind, index };
    if (keyOf(timeline, place) === mark.key) return place;
  }
  return undefined;
}

/** Compares two places of one lane in the list's order. */
function before(timeline: Timeline, a: Place, b: Place): boolean {
  const lists = listsOf(timeline, a.lane);
  const atA = startOf(lists[a.kind]?.[a.index] as Start);
  const atB = startOf(lists[b.kind]?.[b.index] as Start);
  return atA < atB || (atA === atB && (a.kind < b.kind || (a.kind === b.kind && a.index < b.index)));
}

function edgeOfLane(timeline: Timeline, lane: number, last: boolean): Place | undefined {
  let best: Place | undefined;
  listsOf(timeline, lane).forEach((list, kind) => {
    if (list.length === 0) return;
    const place = { lane, kind, index: last ? list.length - 1 : 0 };
    if (!best || before(timeline, place, best) !== last) best = place;
  });
  return best;
}

function stepInLane(timeline: Timeline, here: Place, forward: boolean): Place | undefined {
  const lists = listsOf(timeline, here.lane);
  const t = startOf(lists[here.kind]?.[here.index] as Start);
  let best: Place | undefined;
  lists.forEach((list, kind) => {
    let index: number;
    if (kind === here.kind) index = here.index + (forward ? 1 : -1);
    // At the same moment, a kind listed earlier comes before this mark, a later one after it.
    else if (forward) index = bound(list, t, kind < here.kind);
    else index = bound(list, t, kind < here.kind) - 1;
    if (index < 0 || index >= list.length) return;
    const place = { lane: here.lane, kind, index };
    if (!best || before(timeline, place, best) === forward) best = place;
  });
  return best;
}

function nearestIn(timeline: Timeline, lane: number, t: number): Place | undefined {
  let best: Place | undefined;
  let bestGap = Number.POSITIVE_INFINITY;
  listsOf(timeline, lane).forEach((list, kind) => {
    const i = bound(list, t, false);
    for (const index of [i - 1, i]) {
      const item = list[index];
      if (!item) continue;
      const gap = Math.abs(startOf(item) - t);
      if (gap < bestGap) {
        bestGap = gap;
        best = { lane, kind, index };
      }
    }
  });
  return best;
}

/** The mark a key leads to from `from` (the first mark when nothing is focused yet). */
export function neighbour(
  timeline: Timeline,
  from: MarkText | undefined,
  move: Move,
  flagged: ReadonlySet<number>,
): MarkText | undefined {
  const lanes = laneCount(timeline);
  const firstFrom = (lane: number, step: 1 | -1) => {
    for (let l = lane; l >= 0 && l < lanes; l += step) {
      const place = edgeOfLane(timeline, l, step === -1);
      if (place) return place;
    }
    return undefined;
  };
  const here = from && placeOf(timeline, from);
  let target: Place | undefined;
  if (move === 'last') target = firstFrom(lanes - 1, -1);
  else if (move === 'first' || !here) target = firstFrom(0, 1);
  else if (move === 'next') target = stepInLane(timeline, here, true) ?? firstFrom(here.lane + 1, 1);
  else if (move === 'previous') target = stepInLane(timeline, here, false) ?? firstFrom(here.lane - 1, -1);
  else {
    const step = move === 'up' ? -1 : 1;
    const t = from.at;
    for (let l = here.lane + step; l >= 0 && l < lanes && !target; l += step) target = nearestIn(timeline, l, t);
  }
  return target && describePlace(timeline, target, flagged);
}
