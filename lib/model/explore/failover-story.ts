import type { NewEvent } from '../core/events';
import type { WireEvent } from '../core/wire';
import { FAILOVER_RESOURCE, failoverEvent } from '../failover/failover-events';
import type { FailoverServerRole } from '../failover/failover-steps';

/*
 * The failover lab's story for the explorer (story.ts holds the holders' steps): the lock service on
 * a primary and a streaming standby, each with its row, its lease row and its token sequence. Two
 * steps of the pair's own: the standby catches up (replication ships what the primary has: the row,
 * the lease, the sequence as its WAL logged it), and the primary dies and the standby is promoted (at
 * most once; from then on grants, writes and expiries happen on the promoted server). Asynchronous
 * replication acknowledges on the primary alone, so a promotion loses what the standby had not
 * replayed; synchronous replication has every acknowledged grant and write on the standby at once, so
 * there is nothing to catch up and nothing to lose.
 *
 * Tokens, as the pair mints them (`fo_token_seq`, PostgreSQL's nextval): the next value after the last
 * handed out; a value beyond what the sequence's last WAL record covers writes a new record 32 values
 * ahead (the first grant logs 33). A standby has the last record it replayed, and once promoted hands
 * out tokens from just above it (from 1 if it never replayed one). Checkpoints are left out: one would
 * only make the next grant log again, and the standby's ceiling higher. Pure: the row's writes are the
 * storage's (db/explore-failover.ts, the lab's own UPDATE), told to applyStep as for every lab.
 */

export type Replication = 'async' | 'sync';

/** PostgreSQL writes a sequence's WAL record this many values ahead of the value handed out (SEQ_LOG_VALS). */
export const SEQUENCE_LOGGED_AHEAD = 32;

/** A holder's name (story.ts HolderName: A, B, C), kept apart here so that story.ts alone imports this file. */
type Holder = string;
/** An event of a step, as story.ts StepEvent: the path gives it its id, its time and its lab. */
type StepEvent = Omit<WireEvent, 'id' | 'at' | 'lab'>;

export type ServerLease = { holder: Holder; token: number };
type Row = { value: string; token: number };

export type FailoverState = {
  replication: Replication;
  /** The primary died and the standby was promoted: the serving server is the promoted standby. */
  promoted: boolean;
  /** The serving server's sequence: the last value handed out (0: none yet), and what its last WAL record covers. */
  sequence: { last: number; logged: number };
  /** The serving server's lease row: the last grant made on it (or replayed, once promoted). */
  lease?: ServerLease;
  /** What the standby has replayed: the row, the lease row, the value its sequence's last record covers. */
  standby: { row: Row; lease?: ServerLease; ceiling: number };
  /** What the standby lacks (asynchronous, before the promotion): grants and accepted writes since it last caught up. */
  behind: { grants: number; writes: number };
};

export type PairStep = { kind: 'catch-up' } | { kind: 'promote' };

export function initialFailover(replication: Replication, row: Row): FailoverState {
  return {
    replication,
    promoted: false,
    sequence: { last: 0, logged: 0 },
    standby: { row: { ...row }, ceiling: 0 },
    behind: { grants: 0, writes: 0 },
  };
}

/** The serving server's name in the lab's events. */
export const servingServer = (fo: FailoverState): FailoverServerRole => (fo.promoted ? 'promoted standby' : 'primary');

/** Everything of the pair the future depends on (the standby's part only until it is promoted). */
export function failoverKey(fo: FailoverState): unknown[] {
  const lease = (l?: ServerLease) => (l ? [l.holder, l.token] : null);
  const before = fo.promoted
    ? []
    : [fo.standby.row.value, fo.standby.row.token, lease(fo.standby.lease), fo.standby.ceiling, fo.behind];
  return [fo.replication, fo.promoted, fo.sequence.last, fo.sequence.logged, lease(fo.lease), ...before];
}

/** The pair's steps that may come next: the catch-up while the standby lacks something, the promotion once. */
export function failoverSteps(fo: FailoverState): PairStep[] {
  if (fo.promoted) return [];
  const behind = fo.behind.grants > 0 || fo.behind.writes > 0;
  return behind && fo.replication === 'async' ? [{ kind: 'catch-up' }, { kind: 'promote' }] : [{ kind: 'promote' }];
}

/** A grant on the serving server: its sequence's next value (and a new WAL record when past what it logged). */
export function grantOnPair(fo: FailoverState, holder: Holder): { token: number; failover: FailoverState } {
  const token = fo.sequence.last + 1;
  const sequence = {
    last: token,
    logged: token > fo.sequence.logged ? token + SEQUENCE_LOGGED_AHEAD : fo.sequence.logged,
  };
  const lease = { holder, token };
  const next = { ...fo, sequence, lease };
  if (fo.promoted) return { token, failover: next };
  if (fo.replication === 'sync') {
    // The grant's COMMIT (its sequence record with it) is acknowledged once the standby has it.
    return { token, failover: { ...next, standby: { ...fo.standby, lease, ceiling: sequence.logged } } };
  }
  return { token, failover: { ...next, behind: { ...fo.behind, grants: fo.behind.grants + 1 } } };
}

/** An accepted write's row on the serving server (a refused one wrote nothing, and no WAL). */
export function writtenOnPair(fo: FailoverState, row: Row): FailoverState {
  if (fo.promoted) return fo;
  if (fo.replication === 'sync') return { ...fo, standby: { ...fo.standby, row: { ...row } } };
  return { ...fo, behind: { ...fo.behind, writes: fo.behind.writes + 1 } };
}

const withoutLab = (event: NewEvent): StepEvent => {
  const { lab: _lab, detail, ...rest } = event;
  return { ...rest, detail: { ...(detail ?? {}) } };
};

const leaseDetail = (lease?: ServerLease) =>
  lease ? { resource: FAILOVER_RESOURCE, holder: lease.holder, token: String(lease.token) } : undefined;

/** A grant as the failover lab records it (its resource, the server that acknowledged it). */
export function grantEvent(fo: FailoverState, holder: Holder, token: number): StepEvent {
  return withoutLab(
    failoverEvent({
      kind: 'grant',
      holder,
      resource: FAILOVER_RESOURCE,
      token: String(token),
      server: servingServer(fo),
    }),
  );
}

/** A write as the failover lab records it (the server that decided it, the row's token when refused). */
export function writeEvent(
  fo: FailoverState,
  write: { holder: Holder; token: number; value: string; accepted: boolean; storedToken?: number },
): StepEvent {
  return withoutLab(
    failoverEvent({
      kind: 'write',
      holder: write.holder,
      token: String(write.token),
      value: write.value,
      server: servingServer(fo),
      accepted: write.accepted,
      ...(write.accepted || write.storedToken === undefined ? {} : { rowToken: String(write.storedToken) }),
    }),
  );
}

/**
 * The pair's own step. The catch-up: the standby replays what the primary has (its row as the storage
 * copied it, the lease row, the sequence's last record). The promotion: the standby's row (the storage
 * writes there from now on), its lease row and its sequence serve; the live lease stays live only if
 * the standby has its grant (else the promoted server sees an older lease, long run out: the lease is
 * free). Its event is the lab's `standby_promoted`, with what the promoted standby holds, which the
 * one checker judges against what was acknowledged.
 */
export function applyPairStep(
  fo: FailoverState,
  step: PairStep,
  primaryRow: Row,
  live: ServerLease | undefined,
): { failover: FailoverState; row: Row; leaseLive: boolean; event: StepEvent } {
  if (fo.promoted) throw new RangeError('the standby was already promoted');
  if (step.kind === 'catch-up') {
    const shipped = fo.behind;
    const standby = { row: { ...primaryRow }, ...(fo.lease ? { lease: fo.lease } : {}), ceiling: fo.sequence.logged };
    return {
      failover: { ...fo, standby, behind: { grants: 0, writes: 0 } },
      row: primaryRow,
      leaseLive: live !== undefined,
      event: withoutLab(
        failoverEvent({
          kind: 'replication_healed',
          caughtUp: { ...shipped, standbyCeiling: String(fo.sequence.logged) },
        }),
      ),
    };
  }
  const { standby } = fo;
  const promotedLease = leaseDetail(standby.lease);
  const event = withoutLab(
    failoverEvent({
      kind: 'standby_promoted',
      row: { value: standby.row.value, lastToken: String(standby.row.token) },
      lease: promotedLease,
      sequence: { primaryLastValue: String(fo.sequence.last), standbyCeiling: String(standby.ceiling) },
    }),
  );
  event.detail = { ...event.detail, behind: fo.behind };
  const { lease: _primaryLease, ...rest } = fo;
  return {
    failover: {
      ...rest,
      promoted: true,
      // Promoted, the standby's sequence is its last replayed record: it hands out from just above it.
      sequence: { last: standby.ceiling, logged: standby.ceiling },
      ...(standby.lease ? { lease: standby.lease } : {}),
      behind: { grants: 0, writes: 0 },
    },
    row: standby.row,
    leaseLive: live !== undefined && standby.lease?.holder === live.holder && standby.lease.token === live.token,
    event,
  };
}

/** "1 grant and 1 write behind", or "with everything acknowledged". */
export function behindWords(behind: { grants: number; writes: number }): string {
  const parts = [
    ...(behind.grants > 0 ? [`${behind.grants} ${behind.grants === 1 ? 'grant' : 'grants'}`] : []),
    ...(behind.writes > 0 ? [`${behind.writes} ${behind.writes === 1 ? 'write' : 'writes'}`] : []),
  ];
  return parts.length === 0 ? 'with everything acknowledged' : `${parts.join(' and ')} behind`;
}
