import type { WireEvent } from './wire';

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

type HolderState = {
  lane: Lane;
  /** The lane's lease bars by token, so that long histories stay linear. */
  leaseByToken: Map<number, LeaseBar>;
  openLease?: LeaseBar;
  believed?: { token: number };
  openPause?: PauseBlock;
  lastSentAt?: number;
};

const expiresAtOf = (event: WireEvent): number | undefined => {
  const raw = event.detail.expiresAt;
  const ms = typeof raw === 'string' ? Date.parse(raw) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
};

/** Builds the timeline from events in id order. `now` is the database's clock, for what is still open. */
export function buildTimeline(events: readonly WireEvent[], now: number): Timeline {
  const holders = new Map<string, HolderState>();
  const row: RowChange[] = [];
  const stateOf = (holder: string): HolderState => {
    let state = holders.get(holder);
    if (!state) {
      state = {
        lane: { holder, leases: [], beliefs: [], pauses: [], writes: [], losses: [], life: [] },
        leaseByToken: new Map(),
      };
      holders.set(holder, state);
    }
    return state;
  };

  for (const event of events) {
    const state = stateOf(event.actor);
    const { lane } = state;
    switch (event.kind) {
      case 'lease_acquired': {
        endBelief(state, event.at);
        const bar: LeaseBar = {
          token: event.token ?? 0,
          from: event.at,
          to: expiresAtOf(event) ?? event.at,
          end: 'held',
          renewals: 0,
          grantEventId: event.id,
        };
        lane.leases.push(bar);
        state.leaseByToken.set(bar.token, bar);
        state.openLease = bar;
        state.believed = { token: bar.token };
        break;
      }
      case 'lease_renewed':
        if (state.openLease && state.openLease.token === event.token) {
          state.openLease.to = expiresAtOf(event) ?? state.openLease.to;
          state.openLease.renewals += 1;
        }
        break;
      case 'lease_expired': {
        const bar = event.token === undefined ? undefined : state.leaseByToken.get(event.token);
        if (bar) {
          bar.end = 'expired';
          bar.to = expiresAtOf(event) ?? bar.to;
          if (state.openLease === bar) state.openLease = undefined;
        }
        break;
      }
      case 'lease_released':
        if (state.openLease) {
          state.openLease.end = 'released';
          state.openLease.to = event.at;
          state.openLease = undefined;
        }
        state.believed = undefined;
        break;
      case 'lease_lost': {
        const reason = typeof event.detail.reason === 'string' ? event.detail.reason : 'lost';
        lane.losses.push({
          at: event.at,
          eventId: event.id,
          reason,
          ...(event.token === undefined ? {} : { token: event.token }),
        });
        endBelief(state, event.at, reason);
        break;
      }
      case 'pause_started': {
        const block: PauseBlock = {
          from: event.at,
          to: now,
          open: true,
          trigger: String(event.detail.trigger ?? 'now'),
          eventId: event.id,
          ...(typeof event.detail.belief === 'string' ? { belief: event.detail.belief } : {}),
        };
        lane.pauses.push(block);
        state.openPause = block;
        break;
      }
      case 'pause_ended':
        if (state.openPause) {
          state.openPause.to = event.at;
          state.openPause.open = false;
          if (typeof event.detail.frozenMs === 'number') state.openPause.frozenMs = event.detail.frozenMs;
          state.openPause = undefined;
        }
        break;
      case 'write_sent':
        state.lastSentAt = event.at;
        break;
      case 'write_accepted':
      case 'write_rejected': {
        const mark: WriteMark = {
          at: event.at,
          eventId: event.id,
          token: event.token ?? 0,
          outcome: event.kind === 'write_accepted' ? 'accepted' : 'rejected',
          value: String(event.detail.value ?? ''),
          ...(state.lastSentAt === undefined ? {} : { sentAt: state.lastSentAt }),
          ...(event.storedToken === undefined ? {} : { storedToken: event.storedToken }),
          ...(typeof event.detail.path === 'string' ? { path: event.detail.path } : {}),
        };
        state.lastSentAt = undefined;
        lane.writes.push(mark);
        if (mark.outcome === 'accepted') {
          row.push({ at: event.at, eventId: event.id, value: mark.value, token: mark.token, by: event.actor });
        }
        break;
      }
      case 'worker_started':
      case 'worker_restarted':
      case 'worker_stopped':
      case 'worker_crashed': {
        const kind = event.kind.replace('worker_', '') as LifeMark['kind'];
        lane.life.push({
          at: event.at,
          eventId: event.id,
          kind,
          ...(event.detail.reason ? { detail: String(event.detail.reason) } : {}),
        });
        if (kind === 'crashed' || kind === 'stopped') {
          if (state.openLease) state.openLease.end = 'crashed';
          state.openLease = undefined;
          endBelief(state, event.at, kind);
          if (state.openPause) {
            state.openPause.to = event.at;
            state.openPause.open = false;
            state.openPause = undefined;
          }
        }
        break;
      }
    }
  }

  // Still believing after the truth ran out: the band runs to now.
  for (const state of holders.values()) {
    const bar = state.openLease;
    if (bar && bar.to <= now) {
      bar.end = 'expired';
      state.openLease = undefined;
    }
    const believed = state.believed;
    const bar2 = believed && state.leaseByToken.get(believed.token);
    const lost = bar2 && bar2.end !== 'held' ? bar2 : undefined;
    if (believed && lost && lost.to < now) {
      state.lane.beliefs.push({ token: believed.token, from: lost.to, to: now, open: true });
    }
  }

  const first = events[0]?.at ?? now;
  const last = events.at(-1)?.at ?? now;
  return {
    lanes: [...holders.values()].map((s) => s.lane),
    row,
    from: first,
    to: Math.max(now, last),
    lastEventId: events.at(-1)?.id ?? 0,
  };
}

/** The holder stops believing (it found out, crashed, or got a new grant): draw the gap, if any. */
function endBelief(state: HolderState, at: number, reason?: string): void {
  const believed = state.believed;
  state.believed = undefined;
  if (!believed) return;
  const bar = state.leaseByToken.get(believed.token);
  if (bar && bar.to < at) {
    state.lane.beliefs.push({
      token: believed.token,
      from: bar.to,
      to: at,
      open: false,
      ...(reason ? { reason } : {}),
    });
  }
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
