import type { WireEvent } from '../core/wire';
import { buildTimeline } from '../timeline/timeline';
import type { Timeline } from '../timeline/timeline-types';

/*
 * Replaying a lab's history at a moment of database time (ms since the epoch, as in WireEvent.at).
 * Everything here is a pure function of the events and the moment: what the row and the lease were
 * is derived by the same reducer that draws the timeline, so the replayed tables never disagree
 * with the marks under the replay cursor.
 */

export type ReplayBounds = { from: number; to: number };

export type RowAt = { value: string; lastToken: number; by: string; eventId: number };

export type LeaseAt = { holder: string; token: number; expiresAt: number };

export const REPLAY_SPEEDS = [0.25, 0.5, 1, 2, 4] as const;

export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

/** More digits than this cannot be an offset into a history (15 digits is over 31,000 years of ms). */
const MOMENT_MAX_DIGITS = 15;

/** The first and last moments of the history; min and max, so that a clock step back cannot invert them. */
export function replayBounds(events: readonly WireEvent[]): ReplayBounds | undefined {
  if (events.length === 0) return undefined;
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const event of events) {
    from = Math.min(from, event.at);
    to = Math.max(to, event.at);
  }
  return { from, to };
}

/**
 * A run's span from its story's start: its first grant (the first thing the story does), not its
 * first event. Two runs of one story line up there on the compare page, however long the one waited
 * between its reset and its first worker (a what-if fork re-runs the story at once; its original
 * waited for its trainer). A run with no grant starts at its first event.
 */
export function storyBounds(events: readonly WireEvent[]): ReplayBounds | undefined {
  const bounds = replayBounds(events);
  const grant = events.find((event) => event.kind === 'lease_acquired');
  return bounds && grant ? { from: grant.at, to: bounds.to } : bounds;
}

/**
 * Every event that had happened by `at`, in id order. Filtered rather than cut at the first later
 * event: two transactions may commit in the opposite order of their clock readings.
 */
export function eventsUntil(events: readonly WireEvent[], at: number): WireEvent[] {
  return events.filter((event) => event.at <= at);
}

/** The protected row as it was at `at`: the last accepted write by then, as the timeline's row lane shows it. */
export function rowAt(events: readonly WireEvent[], at: number): RowAt | undefined {
  const change = buildTimeline(eventsUntil(events, at), at).row.at(-1);
  if (!change) return undefined;
  return { value: change.value, lastToken: change.token, by: change.by, eventId: change.eventId };
}

/**
 * Who held the lease at `at`: the newest grant by then whose lease bar (as renewed, released or
 * expired) still covers `at`. A crash or a holder finding out it lost its lease does not end the
 * lease in the database (the row stays until it expires, and nobody else can take it before), so,
 * as on the timeline, neither ends it here.
 */
export function leaseAt(events: readonly WireEvent[], at: number): LeaseAt | undefined {
  const best = leaseBarAt(buildTimeline(eventsUntil(events, at), at), at);
  if (!best) return undefined;
  return { holder: best.holder, token: best.token, expiresAt: best.expiresAt };
}

/** The lease in force at `at` on a timeline built to `at`, with the grant it came from. */
function leaseBarAt(timeline: Timeline, at: number): (LeaseAt & { grantEventId: number }) | undefined {
  let best: (LeaseAt & { grantEventId: number }) | undefined;
  for (const lane of timeline.lanes) {
    for (const bar of lane.leases) {
      if (bar.from > at || bar.to <= at) continue;
      if (best && best.grantEventId > bar.grantEventId) continue;
      best = { holder: lane.holder, token: bar.token, expiresAt: bar.to, grantEventId: bar.grantEventId };
    }
  }
  return best;
}

/** The time of the first event strictly after `at`, for "step to the next event". */
export function nextEventTime(events: readonly WireEvent[], at: number): number | undefined {
  let next: number | undefined;
  for (const event of events) if (event.at > at && (next === undefined || event.at < next)) next = event.at;
  return next;
}

/** The time of the last event strictly before `at`, for "step to the previous event". */
export function previousEventTime(events: readonly WireEvent[], at: number): number | undefined {
  let previous: number | undefined;
  for (const event of events) {
    if (event.at < at && (previous === undefined || event.at > previous)) previous = event.at;
  }
  return previous;
}

/** Where playback is after `elapsedRealMs` of wall-clock time at `speed`: never past either end. */
export function advance(at: number, elapsedRealMs: number, speed: number, bounds: ReplayBounds): number {
  const next = at + Math.max(0, elapsedRealMs) * speed;
  return Math.min(bounds.to, Math.max(bounds.from, next));
}

/** A moment for a permalink: whole ms since the history's first event (never negative). */
export function momentParam(at: number, from: number): string {
  return String(Math.max(0, Math.round(at - from)));
}

/**
 * The moment a permalink names, as database time clamped into the history; undefined for anything
 * that is not a plain offset in ms (a link is typed by hand, or cut short, or from another history).
 */
export function parseMomentParam(raw: string | null | undefined, bounds: ReplayBounds | undefined): number | undefined {
  if (!bounds || typeof raw !== 'string') return undefined;
  if (raw.length === 0 || raw.length > MOMENT_MAX_DIGITS || !/^\d+$/.test(raw)) return undefined;
  const offset = Number(raw);
  return Math.min(bounds.to, bounds.from + offset);
}

/** A worker as the strip shows it at a moment, rebuilt from the events (the live snapshot's shape). */
export type WorkerAt = {
  id: string;
  name: string;
  phase: 'acquiring' | 'holding' | 'expired' | 'paused' | 'stopped';
  alive: boolean;
  token?: number;
};

/**
 * The lab's workers as they were at `at`: each that had started by then, in the order they started;
 * stopped once its stop or crash was recorded; paused between its freeze and its waking; holding while
 * the database's lease was its own (leaseAt) from a grant to this process, made after its latest
 * start (a restarted worker knows nothing of its old lease, which runs on in the database);
 * `expired` once its own last lease had ended by the database's clock (the end its grant and
 * renewals recorded, at or before `at`) and nothing had told it (no lease lost, no new grant): it
 * still believes it holds it.
 */
export function workersAt(events: readonly WireEvent[], at: number): WorkerAt[] {
  const shown = eventsUntil(events, at);
  const timeline = buildTimeline(shown, at);
  const lease = leaseBarAt(timeline, at);
  const bars = new Map(timeline.lanes.flatMap((lane) => lane.leases.map((bar) => [bar.grantEventId, bar] as const)));
  const names = [
    ...new Set(shown.filter((e) => e.kind === 'worker_started' || e.kind === 'worker_restarted').map((e) => e.actor)),
  ];
  return names.map((name) => {
    const own = shown.filter((e) => e.actor === name);
    const start = own.findLast((e) => e.kind === 'worker_started' || e.kind === 'worker_restarted');
    const startId = start?.id ?? 0;
    const since = own.filter((e) => e.id >= startId);
    const last = (kinds: readonly string[]) => since.findLast((e) => kinds.includes(e.kind));
    const ended = last(['worker_stopped', 'worker_crashed']);
    const grant = last(['lease_acquired']);
    const token = grant?.token;
    if (ended) return { id: name, name, phase: 'stopped', alive: false };
    const froze = last(['pause_started', 'pause_ended']);
    const base = { id: name, name, alive: true, ...(token === undefined ? {} : { token }) };
    if (froze?.kind === 'pause_started') return { ...base, phase: 'paused' };
    if (lease?.holder === name && lease.grantEventId > startId)
      return { ...base, phase: 'holding', token: lease.token };
    const told = last(['lease_lost', 'lease_released', 'lease_acquired']);
    const bar = grant && bars.get(grant.id);
    // A grant that recorded no end (a history from before grants did) ran out when its expiry was recorded.
    const endRecorded = typeof grant?.detail.expiresAt === 'string';
    const ranOut = endRecorded
      ? bar !== undefined && bar.end !== 'released' && bar.to <= at
      : since.some((e) => e.kind === 'lease_expired' && e.token === token && e.id > (grant?.id ?? 0));
    if (ranOut && told?.id === grant?.id) return { ...base, phase: 'expired' };
    return { id: name, name, phase: 'acquiring', alive: true };
  });
}
