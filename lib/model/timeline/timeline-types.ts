import type { LabWideKind } from '../core/events';

/*
 * The timeline, as a pure function of the event log (no React, no DOM, no clock of its own): one
 * lane per holder with its lease bars, the stretches where it believed it still held a lease it had
 * lost, its freezes, its writes and its life events, plus the database lane (the row as it changed)
 * and the lab's own steps (lab-wide marks: the failover lab's cut, heal, kill and promotion).
 * Every mark keeps the id of the event it comes from.
 */

/** `crashed`, `stopped`: its holder's process ended while it held it (the lease itself runs to `to`). */
export type LeaseEnd = 'held' | 'expired' | 'released' | 'crashed' | 'stopped';

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
  /** PostgreSQL's words when the statement itself failed (a your-guard write): the write was undone. */
  error?: string;
  /** The statement that ran, when the history says so (a your-guard counterexample: the trainee's). */
  statement?: string;
  /** Accepted: the token the row held just before, as the row lane shows it (older or newer). */
  overToken?: number;
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

/**
 * A change of the row. `restored`: not a write but the row as a promoted standby came up holding it
 * (the failover lab), which may be older than what was acknowledged before.
 */
export type RowChange = { at: number; eventId: number; value: string; token: number; by: string; restored?: boolean };

/** A step of the whole lab (the failover lab's cluster: a cut, a heal, a kill, a promotion), drawn across the lanes. */
export type LabMark = {
  at: number;
  eventId: number;
  kind: LabWideKind;
  /** Who it concerns: the cluster, or a holder (a grant that waits). */
  actor: string;
  detail: Record<string, unknown>;
};

export type Timeline = {
  lanes: Lane[];
  row: RowChange[];
  /** Steps of the whole lab, in time order. */
  labMarks: LabMark[];
  from: number;
  to: number;
  lastEventId: number;
};
