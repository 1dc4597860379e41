import type {
  BeliefBand,
  Lane,
  LeaseBar,
  LifeMark,
  LossMark,
  PauseBlock,
  RowChange,
  Timeline,
  WriteMark,
} from './timeline';
import type { WireEvent } from './wire';

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

type ListName = 'leases' | 'beliefs' | 'pauses' | 'writes' | 'losses' | 'life';
type Lists = {
  leases: LeaseBar[];
  beliefs: BeliefBand[];
  pauses: PauseBlock[];
  writes: WriteMark[];
  losses: LossMark[];
  life: LifeMark[];
};

type HolderState = {
  holder: string;
  lists: Lists;
  /** Lists a handed-out timeline holds: copied before the next write. */
  shared: Set<ListName>;
  /** Something changed since the last `at`. */
  changed: boolean;
  /** The lane last handed out, and whether it held marks closed at that moment (then it is redone). */
  handedOut?: Lane;
  closedAtNow: boolean;
  /** Index of the lane's lease bar with this token, so that long histories stay linear. */
  leaseByToken: Map<number, number>;
  openLease?: number;
  believed?: { token: number };
  openPause?: number;
  /** Freezes that started again before they ended: they stay open, to `now`. */
  orphanPauses: number[];
  lastSentAt?: number;
};

const expiresAtOf = (event: WireEvent): number | undefined => {
  const raw = event.detail.expiresAt;
  const ms = typeof raw === 'string' ? Date.parse(raw) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
};

/** The list, the holder's own to write to. */
function own<K extends ListName>(state: HolderState, name: K): Lists[K] {
  state.changed = true;
  if (state.shared.has(name)) {
    state.lists[name] = state.lists[name].slice() as Lists[K];
    state.shared.delete(name);
  }
  return state.lists[name];
}

/** Replaces the item at `index` by a changed copy. */
function update<K extends ListName>(state: HolderState, name: K, index: number, patch: Partial<Lists[K][number]>) {
  const list = own(state, name) as Array<Lists[K][number]>;
  const item = list[index];
  if (item) list[index] = { ...item, ...patch };
}

export function createTimelineBuilder(): TimelineBuilder {
  let holders = new Map<string, HolderState>();
  let row: RowChange[] = [];
  let rowShared = false;
  let count = 0;
  let lastEventId = 0;
  let firstAt: number | undefined;
  let lastAt: number | undefined;
  /** The first and last events folded, to tell a grown log from another one. */
  let firstEvent: WireEvent | undefined;
  let lastEvent: WireEvent | undefined;

  const reset = () => {
    holders = new Map();
    row = [];
    rowShared = false;
    count = 0;
    lastEventId = 0;
    firstAt = undefined;
    lastAt = undefined;
    firstEvent = undefined;
    lastEvent = undefined;
  };

  const stateOf = (holder: string): HolderState => {
    let state = holders.get(holder);
    if (!state) {
      state = {
        holder,
        lists: { leases: [], beliefs: [], pauses: [], writes: [], losses: [], life: [] },
        shared: new Set(),
        changed: true,
        closedAtNow: false,
        leaseByToken: new Map(),
        orphanPauses: [],
      };
      holders.set(holder, state);
    }
    return state;
  };

  const fold = (event: WireEvent) => {
    if (event.id <= lastEventId) reset();
    count += 1;
    lastEventId = event.id;
    firstAt ??= event.at;
    lastAt = event.at;
    firstEvent ??= event;
    lastEvent = event;
    const state = stateOf(event.actor);
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
        const leases = own(state, 'leases');
        leases.push(bar);
        state.leaseByToken.set(bar.token, leases.length - 1);
        state.openLease = leases.length - 1;
        state.believed = { token: bar.token };
        break;
      }
      case 'lease_renewed': {
        const open = state.openLease === undefined ? undefined : state.lists.leases[state.openLease];
        if (state.openLease !== undefined && open && open.token === event.token) {
          update(state, 'leases', state.openLease, { to: expiresAtOf(event) ?? open.to, renewals: open.renewals + 1 });
        }
        break;
      }
      case 'lease_expired': {
        const index = event.token === undefined ? undefined : state.leaseByToken.get(event.token);
        const bar = index === undefined ? undefined : state.lists.leases[index];
        if (index !== undefined && bar) {
          update(state, 'leases', index, { end: 'expired', to: expiresAtOf(event) ?? bar.to });
          if (state.openLease === index) state.openLease = undefined;
        }
        break;
      }
      case 'lease_released':
        if (state.openLease !== undefined) {
          update(state, 'leases', state.openLease, { end: 'released', to: event.at });
          state.openLease = undefined;
        }
        state.believed = undefined;
        break;
      case 'lease_lost': {
        const reason = typeof event.detail.reason === 'string' ? event.detail.reason : 'lost';
        own(state, 'losses').push({
          at: event.at,
          eventId: event.id,
          reason,
          ...(event.token === undefined ? {} : { token: event.token }),
        });
        endBelief(state, event.at, reason);
        break;
      }
      case 'pause_started': {
        const pauses = own(state, 'pauses');
        if (state.openPause !== undefined) state.orphanPauses.push(state.openPause);
        pauses.push({
          from: event.at,
          // Closed at `now` by `at` while it lasts.
          to: event.at,
          open: true,
          trigger: String(event.detail.trigger ?? 'now'),
          eventId: event.id,
          ...(typeof event.detail.belief === 'string' ? { belief: event.detail.belief } : {}),
        });
        state.openPause = pauses.length - 1;
        break;
      }
      case 'pause_ended':
        if (state.openPause !== undefined) {
          update(state, 'pauses', state.openPause, {
            to: event.at,
            open: false,
            ...(typeof event.detail.frozenMs === 'number' ? { frozenMs: event.detail.frozenMs } : {}),
          });
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
        own(state, 'writes').push(mark);
        if (mark.outcome === 'accepted') {
          if (rowShared) {
            row = row.slice();
            rowShared = false;
          }
          row.push({ at: event.at, eventId: event.id, value: mark.value, token: mark.token, by: event.actor });
        }
        break;
      }
      case 'worker_started':
      case 'worker_restarted':
      case 'worker_stopped':
      case 'worker_crashed': {
        const kind = event.kind.replace('worker_', '') as LifeMark['kind'];
        own(state, 'life').push({
          at: event.at,
          eventId: event.id,
          kind,
          ...(event.detail.reason ? { detail: String(event.detail.reason) } : {}),
        });
        if (kind === 'crashed' || kind === 'stopped') {
          if (state.openLease !== undefined) update(state, 'leases', state.openLease, { end: 'crashed' });
          state.openLease = undefined;
          endBelief(state, event.at, kind);
          if (state.openPause !== undefined) {
            update(state, 'pauses', state.openPause, { to: event.at, open: false });
            state.openPause = undefined;
          }
        }
        break;
      }
    }
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
      const lanes = [...holders.values()].map((state) => laneAt(state, now));
      rowShared = true;
      return {
        lanes,
        row,
        from: firstAt ?? now,
        to: Math.max(now, lastAt ?? now),
        lastEventId,
      };
    },
  };
}

/** The holder stops believing (it found out, crashed, or got a new grant): draw the gap, if any. */
function endBelief(state: HolderState, at: number, reason?: string): void {
  const believed = state.believed;
  state.believed = undefined;
  if (!believed) return;
  const index = state.leaseByToken.get(believed.token);
  const bar = index === undefined ? undefined : state.lists.leases[index];
  if (bar && bar.to < at) {
    own(state, 'beliefs').push({
      token: believed.token,
      from: bar.to,
      to: at,
      open: false,
      ...(reason ? { reason } : {}),
    });
  }
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
