import { createTimelineBuilder } from './timeline-builder';
import type { WireEvent } from './wire';

export { createTimelineBuilder, type TimelineBuilder } from './timeline-builder';

/*
 * The timeline, as a pure function of the event log (no React, no DOM, no clock of its own): one
 * lane per holder with its lease bars, the stretches where it believed it still held a lease it had
 * lost, its freezes, its writes and its life events, plus the database lane (the row as it changed).
 * Every mark keeps the id of the event it comes from.
 */

export type LeaseEnd = 'held' | 'expired' | 'released' | 'crashed';

export type LeaseBar = {
  token: number;
  from: number;
  /** When the lease runs (or ran) out by the database's clock, as last renewed. */
  to: number;
  end: LeaseEnd;
  renewals: number;
  grantEventId: number;
};

/** The worker believed it held the lease (with this token) from `from` until `to`: it did not. */
export type BeliefBand = { token: number; from: number; to: number; open: boolean; reason?: string };

export type PauseBlock = {
  from: number;
  to: number;
  open: boolean;
  trigger: string;
  belief?: string;
  frozenMs?: number;
  eventId: number;
};

export type WriteMark = {
  at: number;
  sentAt?: number;
  eventId: number;
  token: number;
  outcome: 'accepted' | 'rejected';
  value: string;
  storedToken?: number;
  path?: string;
};

export type LifeMark = {
  at: number;
  eventId: number;
  kind: 'started' | 'stopped' | 'crashed' | 'restarted';
  detail?: string;
};

export type LossMark = { at: number; eventId: number; token?: number; reason: string };

export type Lane = {
  holder: string;
  leases: LeaseBar[];
  beliefs: BeliefBand[];
  pauses: PauseBlock[];
  writes: WriteMark[];
  losses: LossMark[];
  life: LifeMark[];
};

export type RowChange = { at: number; eventId: number; value: string; token: number; by: string };

export type Timeline = { lanes: Lane[]; row: RowChange[]; from: number; to: number; lastEventId: number };

/** Builds the timeline from events in id order. `now` is the database's clock, for what is still open. */
export function buildTimeline(events: readonly WireEvent[], now: number): Timeline {
  const builder = createTimelineBuilder();
  builder.append(events);
  return builder.at(now);
}

function rowUntil(row: RowChange[], to: number): number {
  const after = row.findIndex((change) => change.at > to);
  return after === -1 ? row.length : after + 1;
}

/** Only what overlaps [from, to]: what a view of that stretch of time has to draw. */
export function cullTimeline(timeline: Timeline, from: number, to: number): Timeline {
  const span = <T extends { from: number; to: number }>(items: T[]) =>
    items.filter((i) => i.to >= from && i.from <= to);
  const point = <T extends { at: number }>(items: T[]) => items.filter((i) => i.at >= from && i.at <= to);
  const rowFrom = timeline.row.findLastIndex((change) => change.at < from);
  return {
    ...timeline,
    lanes: timeline.lanes.map((lane) => ({
      holder: lane.holder,
      leases: span(lane.leases),
      beliefs: span(lane.beliefs),
      pauses: span(lane.pauses),
      writes: point(lane.writes),
      losses: point(lane.losses),
      life: point(lane.life),
    })),
    // The change in force at `from` stays, and the first one after `to`: a change is drawn (and
    // described) up to the next one, which may lie outside the stretch.
    row: timeline.row.slice(Math.max(0, rowFrom), rowUntil(timeline.row, to)),
  };
}

/**
 * `next`, with each lane whose marks are the same as in `previous` (same events, same extent)
 * replaced by the previous lane object: a view can then skip drawing what did not change, even
 * across rebuilds of the whole timeline.
 */
export function reuseUnchangedLanes(previous: Timeline | undefined, next: Timeline): Timeline {
  if (!previous) return next;
  const before = new Map(previous.lanes.map((lane) => [lane.holder, lane]));
  const same = <T>(a: T[], b: T[], key: (item: T) => string | number) =>
    a.length === b.length && a.every((item, i) => key(item) === key(b[i] as T));
  const lanes = next.lanes.map((lane) => {
    const old = before.get(lane.holder);
    const unchanged =
      old &&
      same(old.leases, lane.leases, (b) => `${b.grantEventId}:${b.to}:${b.end}`) &&
      same(old.beliefs, lane.beliefs, (b) => `${b.from}:${b.to}:${b.open}`) &&
      same(old.pauses, lane.pauses, (p) => `${p.eventId}:${p.to}:${p.open}`) &&
      same(old.writes, lane.writes, (w) => w.eventId) &&
      same(old.losses, lane.losses, (l) => l.eventId) &&
      same(old.life, lane.life, (l) => l.eventId);
    return unchanged ? old : lane;
  });
  const row = same(previous.row, next.row, (r) => r.eventId) ? previous.row : next.row;
  return { ...next, lanes, row };
}
