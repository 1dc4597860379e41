import { tallyChaos } from '../chaos/chaos-tally';
import type { WireEvent } from '../core/wire';
import type { Fencing, SweepPoint } from './sweep-grid';

/*
 * What one run of the sweep showed, read from the events its processes recorded (pure). The stale
 * write attempt is the chaos runs' (chaos-tally.ts): a write of a holder whose lease was superseded,
 * sent after the newer holder's write was accepted. Here the holder is A, frozen in its critical
 * window for the pause, and the newer one B, if A's lease ran out by the database's clock meanwhile.
 */

export type RunOutcome =
  /** A's stale write was accepted: a lost update (what the lab without fencing shows). */
  | 'stale-accepted'
  /** A's stale write was rejected by the token check (what fencing does). */
  | 'stale-rejected'
  /** No stale write: A's write after its freeze was in time (its lease outlived the pause, or B had not written yet). */
  | 'no-stale-write'
  /**
   * No stale write either: B took the lease over before the pause struck, and A found out at its
   * next renewal (refused) and wrote nothing more. A slow clock renews late; so does a starved process.
   */
  | 'lease-lost-first'
  /** The story did not get as far as A's write after its freeze: nothing can be said of this run. */
  | 'unfinished'
  /** Someone stopped the sweep while this run was under way: its workers were stopped, nothing is concluded. */
  | 'stopped';

export const RUN_OUTCOMES: readonly RunOutcome[] = [
  'stale-accepted',
  'stale-rejected',
  'no-stale-write',
  'lease-lost-first',
  'unfinished',
  'stopped',
];

export type RunClassification = {
  outcome: RunOutcome;
  /** A froze in its critical window. */
  froze: boolean;
  /** B took the lease over (A's ran out by the database's clock). */
  tookOver: boolean;
  /** A wrote after its freeze (accepted or rejected). */
  wroteAfterFreeze: boolean;
  /** A found its lease taken over by B (a renewal refused) before any freeze: it wrote nothing more. */
  lostBeforeFreeze: boolean;
  staleAttempts: number;
  staleAccepted: number;
};

/** An event as the lab recorded it (a WireEvent, or a test's own). */
export type CellEvent = Pick<WireEvent, 'id' | 'actor' | 'lab' | 'token' | 'rowId' | 'detail'> & { kind: string };

const isWrite = (e: CellEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';

/**
 * A's lease lost to B: a lease_lost of A's after B took the lease. (A alone may lose its own lease,
 * a slow clock renewing late, and take it again at once: that ends nothing.)
 */
export function isLostToB(
  event: Pick<CellEvent, 'id' | 'actor' | 'kind'>,
  events: readonly Pick<CellEvent, 'id' | 'actor' | 'kind'>[],
): boolean {
  return (
    event.actor === 'A' &&
    event.kind === 'lease_lost' &&
    events.some((e) => e.actor === 'B' && e.kind === 'lease_acquired' && e.id < event.id)
  );
}

export function classifyRun(events: readonly CellEvent[]): RunClassification {
  const ordered = [...events].sort((a, b) => a.id - b.id);
  const frozen = ordered.find((e) => e.actor === 'A' && e.kind === 'pause_started');
  const woke = frozen && ordered.find((e) => e.actor === 'A' && e.kind === 'pause_ended' && e.id > frozen.id);
  const wroteAfterFreeze = woke !== undefined && ordered.some((e) => e.actor === 'A' && isWrite(e) && e.id > woke.id);
  const tookOver = ordered.some((e) => e.actor === 'B' && e.kind === 'lease_acquired');
  const lostBeforeFreeze = ordered.some((e) => isLostToB(e, ordered) && (!frozen || e.id < frozen.id));
  const { staleAttempts, staleAccepted } = tallyChaos(ordered, 0);
  const outcome: RunOutcome =
    staleAccepted > 0
      ? 'stale-accepted'
      : staleAttempts > 0
        ? 'stale-rejected'
        : wroteAfterFreeze
          ? 'no-stale-write'
          : lostBeforeFreeze
            ? 'lease-lost-first'
            : 'unfinished';
  return {
    outcome,
    froze: frozen !== undefined,
    tookOver,
    wroteAfterFreeze,
    lostBeforeFreeze,
    staleAttempts,
    staleAccepted,
  };
}

/** A run's result as the sweep reports it: where it ran, and what it showed (or why it could not). */
export type SweepRunResult = RunClassification & {
  index: number;
  point: SweepPoint;
  fencing: Fencing;
  /** The lab the run had of its own (p-…), kept closed with its history for a while. */
  lab: string;
  failure?: string;
};

const OUTCOME_WORDS: Record<RunOutcome, string> = {
  'stale-accepted': 'a stale write was attempted and accepted: a lost update',
  'stale-rejected': 'a stale write was attempted and fencing rejected it',
  'no-stale-write': 'no stale write: A’s lease outlived its pause, or B had not written yet',
  'lease-lost-first': 'no stale write: B took the lease over before the pause struck, and A’s next renewal was refused',
  unfinished: 'unfinished: the story stopped before A wrote after its pause',
  stopped: 'stopped: the sweep was stopped while this run was under way',
};

/** The short word a cell shows, beside its symbol. */
export const OUTCOME_LABEL: Record<RunOutcome, string> = {
  'stale-accepted': 'lost update',
  'stale-rejected': 'rejected',
  'no-stale-write': 'no stale write',
  'lease-lost-first': 'lease lost first',
  unfinished: 'unfinished',
  stopped: 'stopped',
};

/** A symbol per outcome, so that the heat map reads without its colours. */
export const OUTCOME_SYMBOL: Record<RunOutcome, string> = {
  'stale-accepted': '✗',
  'stale-rejected': '✓',
  'no-stale-write': '–',
  'lease-lost-first': '!',
  unfinished: '?',
  stopped: '■',
};

export function describePoint(point: SweepPoint): string {
  const drift = point.driftPercent > 0 ? `, A's clock ${point.driftPercent} % slow` : '';
  return `pause ${point.pauseMs} ms, lease TTL ${point.ttlMs} ms${drift}`;
}

/** What a screen reader says for a cell, and what the exported figure's <title> holds. */
export function describeRun(run: Pick<SweepRunResult, 'point' | 'fencing' | 'outcome' | 'failure'>): string {
  const lab = run.fencing === 'fenced' ? 'fenced' : 'without fencing';
  const why = run.failure ? ` (${run.failure})` : '';
  return `${describePoint(run.point)}, ${lab}: ${OUTCOME_WORDS[run.outcome]}${why}`;
}
