import { isBigintText } from '../core/token';
import type { WireEvent } from '../core/wire';
import { FAILOVER_HOLDERS, FAILOVER_RESOURCE, failoverEvent, failoverStepOf } from './failover-events';

/*
 * The failover pair's servers as they were at a moment, rebuilt from the lab's events alone (issue
 * 35): for a replayed history and an explored path, where nothing of the pair is live. The lab's page
 * asks the servers themselves (lib/supervisor/failover/failover-lab-view.ts); here every cell is
 * what an event up to the moment recorded, or says that none did. What no event records:
 *
 * - an asynchronous standby's row, lease and sequence between the pair's start and its promotion: the
 *   live lab's replication ships without an event (its promotion records what the standby held); the
 *   explorer's standby changes only at its recorded catch-up steps, so there they are known;
 * - how many values the primary's sequence has logged ahead, except at the cut that recorded it;
 * - a lease's seconds left: only whether it still ran (its recorded expiry, or a recorded run-out).
 */

export type FailoverMode = 'async' | 'sync';
export type ServerRole = 'primary' | 'standby' | 'promoted standby';
/** What no event up to the moment records, and why, in the view's words. */
export type NotRecorded = { notRecorded: string };
export type RowAt = { value: string; lastToken: string };
export type LeaseAt = { holder: string; token: string; runs: boolean | undefined };
/** A sequence: the last value handed out (undefined: none yet), and what its last WAL record covers, if recorded. */
export type SequenceAt = { lastValue?: string; loggedAhead?: number; coversUpTo?: string };

export type ServerAt = {
  role: ServerRole;
  running: boolean;
  row: RowAt | NotRecorded;
  /** `none`: the server has no lease row. */
  lease: LeaseAt | 'none' | NotRecorded;
  sequence: SequenceAt | NotRecorded;
};

export type FailoverServersAt = {
  /** No pair yet (before its start), a pair running (or its standby promoted), or stopped. */
  pair: 'none' | 'running' | 'stopped';
  /** Undefined when no event up to the moment records it (an explored path says it by its address). */
  mode: FailoverMode | undefined;
  /** Undefined where the story records no cut or heal (an explored path: its standby catches up by steps). */
  replicationCut: boolean | undefined;
  promoted: boolean;
  holders: { name: string; token?: string; waiting: boolean }[];
  servers: ServerAt[];
};

export type ServersAtOptions = {
  /**
   * A story that began before its first event with the pair already running (an explored path: its
   * pair is the explorer's, in this mode), where the standby changes only at its recorded catch-ups.
   */
  explored?: { mode: FailoverMode | undefined };
  /** Holders named before they act (the explorer's A, B, C): listed with no token until they have one. */
  holders?: readonly string[];
};

/** The lab's protected row as each pair starts with it (db/failover-cluster.ts PROTECTED_ROW_SCHEMA). */
export const FAILOVER_INITIAL_ROW: RowAt = { value: 'initial', lastToken: '0' };

const NOT_SHIPPED: NotRecorded = {
  notRecorded: 'asynchronous replication ships without an event: what the standby had is recorded at its promotion',
};
const NOT_LOGGED: NotRecorded = {
  notRecorded:
    'what a standby’s sequence covers is recorded by the live lab at the kill, and by an explored path at a catch-up and at the promotion',
};

type Server = {
  running: boolean;
  row: RowAt | NotRecorded;
  lease: LeaseAt | 'none' | NotRecorded;
  sequence: SequenceAt | NotRecorded;
};

const fresh = (): Server => ({ running: true, row: { ...FAILOVER_INITIAL_ROW }, lease: 'none', sequence: {} });
const isRecorded = <T extends object>(value: T | NotRecorded | 'none'): value is T =>
  typeof value === 'object' && !('notRecorded' in value);

/**
 * The pair's servers at `at` (ms, as WireEvent.at), from the failover lab's events up to it: each
 * server's row, lease row and sequence, the replication, and the token each holder was told.
 */
export function failoverServersAt(
  events: readonly WireEvent[],
  at: number,
  options: ServersAtOptions = {},
): FailoverServersAt {
  const explored = options.explored !== undefined;
  let pair: FailoverServersAt['pair'] = explored ? 'running' : 'none';
  let mode = options.explored?.mode;
  let cut: boolean | undefined = explored ? undefined : false;
  let promoted = false;
  let primary = fresh();
  let standby = fresh();
  /** Each grant's recorded end (ms), by holder and token, to tell whether a lease row still ran. */
  const ends = new Map<string, number | undefined>();
  const holders = new Map<string, { token?: string; waiting: boolean }>(
    (options.holders ?? []).map((name) => [name, { waiting: false }]),
  );
  const leaseKey = (holder: string, token: string) => `${holder}/${token}`;

  const ordered = events.filter((e) => e.at <= at).sort((a, b) => a.id - b.id);
  for (const event of ordered) {
    if (event.kind === 'lease_expired') {
      ends.set(leaseKey(event.actor, String(event.token ?? 0)), event.at);
      continue;
    }
    const step = failoverStepOf(event);
    if (!step) continue;
    const serving = promoted ? standby : primary;
    switch (step.kind) {
      case 'pair_started':
        pair = 'running';
        mode = step.mode;
        cut = explored ? undefined : false;
        promoted = false;
        primary = fresh();
        standby = fresh();
        ends.clear();
        for (const holder of holders.values()) {
          delete holder.token;
          holder.waiting = false;
        }
        break;
      case 'grant': {
        const lastValue = serving.sequence;
        serving.sequence = { lastValue: step.token, ...coverage(lastValue, step.token) };
        // A grant of the service's other locks moves the shared sequence on, and leaves the lab's lease row.
        if (step.resource === FAILOVER_RESOURCE) {
          holders.set(step.holder, { token: step.token, waiting: false });
          const expiresAt = Date.parse(step.expiresAt ?? '');
          ends.set(leaseKey(step.holder, step.token), Number.isNaN(expiresAt) ? undefined : expiresAt);
          serving.lease = { holder: step.holder, token: step.token, runs: undefined };
        }
        if (!promoted) standby = shipped(standby, mode, explored, serving, 'grant');
        break;
      }
      case 'grant_waiting':
        holders.set(step.holder, { ...holders.get(step.holder), waiting: true });
        break;
      case 'write':
        if (step.accepted) {
          serving.row = { value: step.value, lastToken: step.token };
          if (!promoted) standby = shipped(standby, mode, explored, serving, 'write');
        } else if (step.rowToken !== undefined && isRecorded(serving.row) && serving.row.lastToken !== step.rowToken) {
          // A refusal names the row's token: a row this view had otherwise is not what the server held.
          serving.row = { notRecorded: 'a refusal recorded another token on the row' };
        }
        break;
      case 'replication_cut':
        cut = true;
        if (step.sequence)
          primary.sequence = {
            lastValue: step.sequence.primaryLastValue,
            loggedAhead: step.sequence.primaryLogCount,
          };
        break;
      case 'replication_healed': {
        cut = explored ? undefined : false;
        const ceiling = step.caughtUp?.standbyCeiling;
        if (step.caughtUp) {
          // The explorer's catch-up: the standby replays everything the primary has.
          standby = {
            ...standby,
            row: copy(primary.row),
            lease: copy(primary.lease),
            sequence: { ...(ceiling ? { coversUpTo: ceiling } : {}) },
          };
        }
        break;
      }
      case 'primary_killed':
        primary.running = false;
        if (step.sequence) {
          primary.sequence = { lastValue: step.sequence.primaryLastValue };
          standby.sequence = { coversUpTo: step.sequence.standbyCeiling };
        }
        break;
      case 'standby_promoted': {
        promoted = true;
        // An explored promotion is the primary's death and the promotion in one step; the live lab's
        // Promote leaves the primary running (its kill is recorded apart: primary_killed).
        if (explored) primary.running = false;
        const last = step.sequence?.primaryLastValue;
        // A sequence hands out 1 first: a last value of 0 is none handed out.
        if (last !== undefined && last !== '0') primary.sequence = { lastValue: last };
        const ceiling = step.sequence?.standbyCeiling;
        const known = isRecorded(standby.sequence) ? standby.sequence.coversUpTo : undefined;
        standby = {
          running: true,
          row: { ...step.row },
          lease: step.lease ? { holder: step.lease.holder, token: step.lease.token, runs: undefined } : 'none',
          sequence: (ceiling ?? known) ? { coversUpTo: ceiling ?? known } : NOT_LOGGED,
        };
        break;
      }
      case 'pair_stopped':
        pair = 'stopped';
        primary.running = false;
        standby.running = false;
        break;
    }
  }

  const runs = (server: Server): Server['lease'] => {
    const { lease } = server;
    if (!isRecorded(lease)) return lease;
    // A server that went down keeps the lease row it held; whether that lease ran on is not its to say.
    if (!server.running) return { ...lease, runs: undefined };
    if (!ends.has(leaseKey(lease.holder, lease.token))) return lease;
    const end = ends.get(leaseKey(lease.holder, lease.token));
    return { ...lease, runs: end === undefined ? undefined : end > at };
  };
  const view = (role: ServerRole, server: Server): ServerAt => ({ role, ...server, lease: runs(server) });
  return {
    pair,
    mode,
    replicationCut: cut,
    promoted,
    holders: [...holders].map(([name, h]) => ({ name, ...h })).sort((a, b) => a.name.localeCompare(b.name)),
    servers:
      pair === 'none' ? [] : [view('primary', primary), view(promoted ? 'promoted standby' : 'standby', standby)],
  };
}

const copy = <T>(value: T): T => (typeof value === 'object' && value !== null ? { ...value } : value);

/** A sequence value (a BIGINT, as a decimal string) as a bigint: past 2^53 a double would round it. */
const sequenceBigint = (value: string) => (isBigintText(value) ? BigInt(value) : undefined);

/** A grant past what the sequence's last record covered writes a new one: what it covers is then not recorded. */
function coverage(before: Server['sequence'], token: string): Pick<SequenceAt, 'coversUpTo'> {
  if (!isRecorded(before) || before.coversUpTo === undefined) return {};
  const granted = sequenceBigint(token);
  const covered = sequenceBigint(before.coversUpTo);
  return granted !== undefined && covered !== undefined && granted <= covered ? { coversUpTo: before.coversUpTo } : {};
}

/**
 * The standby after an acknowledged grant or write on the primary: with synchronous replication it
 * has it (an acknowledged commit is on the standby); the explorer's asynchronous standby has it only
 * at its next catch-up; the live lab's asynchronous one, not recorded.
 */
function shipped(
  standby: Server,
  mode: FailoverMode | undefined,
  explored: boolean,
  primary: Server,
  what: 'grant' | 'write',
): Server {
  if (mode === 'sync') {
    return what === 'grant'
      ? { ...standby, lease: copy(primary.lease), sequence: NOT_LOGGED }
      : { ...standby, row: copy(primary.row) };
  }
  if (explored && mode === 'async') return standby;
  // Mode unknown, or the live lab's asynchronous replication: what the standby has is not recorded.
  return what === 'grant' ? { ...standby, lease: NOT_SHIPPED, sequence: NOT_LOGGED } : { ...standby, row: NOT_SHIPPED };
}

/** How an explored path's history file says what it is in its title (lib/server/explore-page.ts historyOfPath). */
export const EXPLORED_TITLE = 'an explored interleaving of';
/** An explored failover path's replication, in its title: one of these, always. */
export const REPLICATION_TITLES = { sync: '(synchronous replication)', async: '(asynchronous replication)' } as const;

/**
 * An explored failover path's events as its history file has them (lib/server/explore-page.ts
 * historyOfPath): its pair was started before its first step, in this replication, and the file
 * records that first, as the live lab does (`pair_started`, at the path's first moment, `at` when it
 * has none); the path's own events follow, their ids one on.
 */
export function withPairStarted(
  events: readonly WireEvent[],
  mode: FailoverMode,
  start: { lab: string; at: number },
): WireEvent[] {
  const { lab: _kind, detail, ...started } = failoverEvent({ kind: 'pair_started', mode });
  return [
    { ...started, detail: detail ?? {}, id: 1, at: events[0]?.at ?? start.at, lab: start.lab },
    ...events.map((event) => ({ ...event, id: event.id + 1 })),
  ];
}

/**
 * A failover history file's options for its servers' view: an explored path's title says it is one,
 * and its holders; its replication is the mode its `pair_started` recorded (withPairStarted), or, in a
 * file exported before the explorer recorded one, what its title names (serversOptionsOfTitle).
 */
export function serversOptionsOfFile(title: string, events: readonly WireEvent[]): ServersAtOptions {
  const options = serversOptionsOfTitle(title);
  if (!options.explored) return options;
  const started = events.find((event) => event.kind === 'pair_started');
  const step = started && failoverStepOf(started);
  return step?.kind === 'pair_started' ? { ...options, explored: { mode: step.mode } } : options;
}

/**
 * A failover history file's own words on its story: an explored path's title names it, its holders and
 * its replication; a title that names no replication leaves the mode not recorded, never guessed. Any
 * other file: the lab's holders (the live lab records its mode at its pair's start).
 */
export function serversOptionsOfTitle(title: string): ServersAtOptions {
  const explored = new RegExp(`: ${EXPLORED_TITLE} ([1-3]) holders? `).exec(title);
  if (!explored) return { holders: FAILOVER_HOLDERS };
  const mode = title.includes(` ${REPLICATION_TITLES.sync}`)
    ? 'sync'
    : title.includes(` ${REPLICATION_TITLES.async}`)
      ? 'async'
      : undefined;
  return { explored: { mode }, holders: FAILOVER_HOLDERS.slice(0, Number(explored[1])) };
}
