import { isLabWideKind } from '../core/events';
import type { WireEvent } from '../core/wire';
import { foldLabWide, pushRow } from './timeline-fold-lab';
import type { FoldedLog, HolderState, ListName, Lists } from './timeline-fold-log';
import type { LabMark, LeaseBar, LifeMark, WriteMark } from './timeline-types';

/*
 * One event folded into the timeline being built (lib/model/timeline/timeline-builder.ts): the reducer from
 * events to lanes. It never edits a list a handed-out timeline holds, nor a mark: it copies the list
 * first (`own`) and replaces the mark (`update`).
 */

function stateOf(log: FoldedLog, holder: string): HolderState {
  let state = log.holders.get(holder);
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
    log.holders.set(holder, state);
  }
  return state;
}

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

export function foldEvent(log: FoldedLog, event: WireEvent): void {
  if (isLabWideKind(event.kind)) {
    foldLabWide(log, event as WireEvent & { kind: LabMark['kind'] });
    return;
  }
  if (event.kind === 'lab_closed') {
    // The server closes the lab, not a holder: no lane of its own, and every lane still going ends
    // here (a worker whose own stop was never recorded, a remote one say, does not run on forever).
    for (const state of log.holders.values()) endWorker(state, event.at, 'the lab was closed');
    return;
  }
  const state = stateOf(log, event.actor);
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
      const accepted = event.kind === 'write_accepted';
      const rowBefore = log.row.at(-1);
      const mark: WriteMark = {
        at: event.at,
        eventId: event.id,
        token: event.token ?? 0,
        outcome: accepted ? 'accepted' : 'rejected',
        value: String(event.detail.value ?? ''),
        ...(state.lastSentAt === undefined ? {} : { sentAt: state.lastSentAt }),
        ...(event.storedToken === undefined ? {} : { storedToken: event.storedToken }),
        ...(typeof event.detail.path === 'string' ? { path: event.detail.path } : {}),
        ...(!accepted && event.outcome === 'error' ? { error: String(event.detail.error ?? 'no message') } : {}),
        ...(typeof event.detail.statement === 'string' ? { statement: event.detail.statement } : {}),
        ...(accepted && rowBefore ? { overToken: rowBefore.token } : {}),
      };
      state.lastSentAt = undefined;
      own(state, 'writes').push(mark);
      if (accepted) {
        pushRow(log, { at: event.at, eventId: event.id, value: mark.value, token: mark.token, by: event.actor });
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
      if (kind === 'crashed' || kind === 'stopped') endWorker(state, event.at, kind);
      break;
    }
  }
}

/**
 * The worker's process is gone: what it believed and its freezes end here; its lease stays in the
 * database until it runs out (nobody else can take it before), so its bar keeps its end.
 */
function endWorker(state: HolderState, at: number, why: 'crashed' | 'stopped' | 'the lab was closed'): void {
  if (state.openLease !== undefined) {
    update(state, 'leases', state.openLease, { end: why === 'crashed' ? 'crashed' : 'stopped' });
  }
  state.openLease = undefined;
  endBelief(state, at, why);
  const open = state.openPause === undefined ? state.orphanPauses : [...state.orphanPauses, state.openPause];
  for (const index of open) update(state, 'pauses', index, { to: at, open: false });
  state.openPause = undefined;
  state.orphanPauses = [];
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
