import type { WireEvent } from '../core/wire';
import { foldEvent } from './timeline-fold';
import { emptyLog, type HolderState, type ListName } from './timeline-fold-log';
import type { Lane, Timeline } from './timeline-types';

/*
 * The timeline, built as the log grows: `append` folds in new events, `at(now)` hands out the
 * timeline at that moment. A history of 200,000 events is folded once, not again every second.
 *
 * What `at` hands out is never changed afterwards: the builder's lists are copied before it writes
 * to one that a handed-out timeline holds (copy on write), and a mark that changes (a renewal, an
 * expiry) is replaced by a new object, never edited. A lane in which nothing happened keeps its
 * object and its lists, so that a view can tell at a glance what to draw again. Only what is still
 * open is closed at `now` (a freeze, a belief, a held lease past its expiry), in copies.
 */

export type TimelineBuilder = {
  /**
   * Folds in events that follow those already folded, in id order. An id not above the last one
   * (a reset, or a log read again from its start) starts over from that event.
   */
  append(events: readonly WireEvent[]): void;
  /**
   * Given the whole log (which grows at its end): folds in only what is new, or starts over when the
   * log is not the one folded so far plus more (replaced, cut, or reordered). The log's events are
   * recognised by identity: a log whose events were copied is folded again from its start.
   */
  sync(log: readonly WireEvent[]): void;
  /** The timeline at `now` (the database's clock), for what is still open. */
  at(now: number): Timeline;
};

export function createTimelineBuilder(): TimelineBuilder {
  let folded = emptyLog();
  let count = 0;
  let lastEventId = 0;
  let firstAt: number | undefined;
  let lastAt: number | undefined;
  /** The first and last events folded, to tell a grown log from another one. */
  let firstEvent: WireEvent | undefined;
  let lastEvent: WireEvent | undefined;

  const reset = () => {
    folded = emptyLog();
    count = 0;
    lastEventId = 0;
    firstAt = undefined;
    lastAt = undefined;
    firstEvent = undefined;
    lastEvent = undefined;
  };

  const fold = (event: WireEvent) => {
    if (event.id <= lastEventId) reset();
    count += 1;
    lastEventId = event.id;
    firstAt ??= event.at;
    lastAt = event.at;
    firstEvent ??= event;
    lastEvent = event;
    foldEvent(folded, event);
  };

  const append = (events: readonly WireEvent[], start = 0) => {
    for (let i = start; i < events.length; i++) fold(events[i] as WireEvent);
  };

  return {
    append: (events) => append(events),
    sync(log) {
      const sameSoFar = count > 0 && log.length >= count && log[0] === firstEvent && log[count - 1] === lastEvent;
      if (!sameSoFar) reset();
      append(log, count);
    },
    at(now) {
      const lanes = [...folded.holders.values()].map((state) => laneAt(state, now));
      folded.rowShared = true;
      folded.labMarksShared = true;
      return {
        lanes,
        row: folded.row,
        labMarks: folded.labMarks,
        from: firstAt ?? now,
        to: Math.max(now, lastAt ?? now),
        lastEventId,
      };
    },
  };
}

/** The holder's lane at `now`: its lists as they are, with what is still open closed at `now` (in copies). */
function laneAt(state: HolderState, now: number): Lane {
  const { lists } = state;
  const open = state.openLease === undefined ? undefined : lists.leases[state.openLease];
  const expired = open !== undefined && open.to <= now;
  const believedIndex = state.believed ? state.leaseByToken.get(state.believed.token) : undefined;
  const believedBar = believedIndex === undefined ? undefined : lists.leases[believedIndex];
  // Still believing after the truth ran out: the band runs to now.
  const lost =
    believedBar && (believedBar.end !== 'held' || (expired && believedIndex === state.openLease))
      ? believedBar
      : undefined;
  const belief = state.believed && lost && lost.to < now;
  const openPauses = state.openPause === undefined ? state.orphanPauses : [...state.orphanPauses, state.openPause];
  const closesAtNow = expired || Boolean(belief) || openPauses.length > 0;

  if (state.handedOut && !state.changed && !closesAtNow && !state.closedAtNow) return state.handedOut;
  for (const name of Object.keys(lists) as ListName[]) state.shared.add(name);
  state.changed = false;
  state.closedAtNow = closesAtNow;
  const lane: Lane = { holder: state.holder, ...lists };
  if (expired && state.openLease !== undefined) {
    lane.leases = lists.leases.slice();
    lane.leases[state.openLease] = { ...open, end: 'expired' };
  }
  if (belief && state.believed) {
    lane.beliefs = [...lists.beliefs, { token: state.believed.token, from: lost.to, to: now, open: true }];
  }
  if (openPauses.length > 0) {
    const pauses = lists.pauses.slice();
    for (const index of openPauses) {
      const pause = pauses[index];
      if (pause) pauses[index] = { ...pause, to: now };
    }
    lane.pauses = pauses;
  }
  state.handedOut = lane;
  return lane;
}
