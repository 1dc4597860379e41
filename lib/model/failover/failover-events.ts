import { LABS } from '../../labs/index';
import { kindWhere } from '../../labs/traits';
import type { NewEvent } from '../core/events';
import { isBigintText, parseStoredToken, parseToken } from '../core/token';
import type { WireEvent } from '../core/wire';
import type { FailoverStep } from './failover-steps';

/*
 * The failover lab's story recorded as the events of a lab of its own (lab id `failover`, its mode
 * in `pair_started`), in the app's database: the live feed delivers them, the timeline draws them
 * (A, B and C as lanes; the cluster's steps as lab-wide marks) and the checker judges them like
 * every other lab's. Pure, both ways: a step to its event, and an event back to its step (the
 * walkthrough's progress is read from the events a page holds).
 */

export const FAILOVER_LAB = kindWhere((t) => t.runner === 'failover-pair');
/** The failover lab's holders, by letter (its page's buttons read them here, and so load no zod). */
export const FAILOVER_HOLDERS = ['A', 'B', 'C'] as const;
export type FailoverHolder = (typeof FAILOVER_HOLDERS)[number];
/** Who the cluster's own steps are by. */
export const CLUSTER_ACTOR = 'cluster';
/** The lock the failover lab's holders take, as its events name it (the checker's grants by resource). */
export const FAILOVER_RESOURCE = LABS[FAILOVER_LAB].resource;
/**
 * Who the grants of the lock service's other locks are recorded for (the live story's
 * `--grants-past-cut`): one lane for all of them on the timeline, "Another client" in the narration.
 */
export const OTHER_HOLDERS = 'others';
/** The `n`th of the lock service's other locks (from 1), beside the lab's own: `lab/failover-other-1`, … */
export const otherFailoverResource = (n: number) => `${FAILOVER_RESOURCE}-other-${n}`;

const num = (token: string) => parseToken(token);
/** A step's sequence value as an event records it, a number: 0 too (a standby that replayed no record, a sequence not yet used). */
const sequenceNumber = (value: string) => parseStoredToken(value);

export function failoverEvent(step: FailoverStep): NewEvent {
  const lab = FAILOVER_LAB;
  switch (step.kind) {
    case 'pair_started':
      return { lab, actor: CLUSTER_ACTOR, kind: 'pair_started', detail: { mode: step.mode } };
    case 'grant':
      return {
        lab,
        actor: step.holder,
        kind: 'lease_acquired',
        resource: step.resource,
        token: num(step.token),
        detail: { server: step.server, ...(step.expiresAt ? { expiresAt: step.expiresAt } : {}) },
      };
    case 'grant_waiting':
      return { lab, actor: step.holder, kind: 'grant_waiting', detail: { waitedMs: step.waitedMs } };
    case 'write':
      return {
        lab,
        actor: step.holder,
        kind: step.accepted ? 'write_accepted' : 'write_rejected',
        token: num(step.token),
        ...(step.rowToken === undefined ? {} : { storedToken: parseStoredToken(step.rowToken) }),
        outcome: step.accepted ? 'accepted' : 'rejected',
        detail: { value: step.value, server: step.server, path: `on the ${step.server}` },
      };
    case 'replication_cut':
      return {
        lab,
        actor: CLUSTER_ACTOR,
        kind: 'replication_cut',
        detail: step.sequence
          ? { primaryLastValue: num(step.sequence.primaryLastValue), primaryLogCount: step.sequence.primaryLogCount }
          : {},
      };
    case 'primary_killed':
      return {
        lab,
        actor: CLUSTER_ACTOR,
        kind: 'primary_killed',
        detail: step.sequence
          ? { primaryLastValue: num(step.sequence.primaryLastValue), standbyCeiling: num(step.sequence.standbyCeiling) }
          : {},
      };
    case 'standby_promoted':
      return {
        lab,
        actor: CLUSTER_ACTOR,
        kind: 'standby_promoted',
        detail: {
          row: { value: step.row.value, lastToken: parseStoredToken(step.row.lastToken) },
          lease: step.lease ? { ...step.lease, token: num(step.lease.token) } : null,
          ...(step.sequence
            ? {
                primaryLastValue: sequenceNumber(step.sequence.primaryLastValue),
                standbyCeiling: sequenceNumber(step.sequence.standbyCeiling),
              }
            : {}),
        },
      };
    case 'replication_healed': {
      const caughtUp = step.caughtUp;
      return {
        lab,
        actor: CLUSTER_ACTOR,
        kind: 'replication_healed',
        detail: caughtUp
          ? {
              caughtUp: true,
              grants: caughtUp.grants,
              writes: caughtUp.writes,
              ...(caughtUp.standbyCeiling === undefined
                ? {}
                : { standbyCeiling: sequenceNumber(caughtUp.standbyCeiling) }),
            }
          : {},
      };
    }
    case 'pair_stopped':
      return { lab, actor: CLUSTER_ACTOR, kind: step.kind, detail: {} };
  }
}

/**
 * An event's sequence value as the step carries it (a decimal string), when the event recorded one:
 * a number, or a BIGINT's decimal string (as pg hands it over, however large).
 */
const sequenceText = (value: unknown) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    ? String(value)
    : isBigintText(value)
      ? value
      : undefined;
const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) ? value : 0);
const text = (value: unknown) => (typeof value === 'string' ? value : String(value ?? ''));
const server = (value: unknown) => (value === 'promoted standby' ? 'promoted standby' : 'primary');

/**
 * The step an event of the failover lab records (undefined for any other event); its id, time and lab
 * are not read, so an explored step's event (lib/model/explore/story.ts StepEvent) reads the same.
 */
export function failoverStepOf(event: Omit<WireEvent, 'id' | 'at' | 'lab'>): FailoverStep | undefined {
  const d = event.detail;
  const token = String(event.token ?? 0);
  switch (event.kind) {
    case 'pair_started':
      return { kind: 'pair_started', mode: d.mode === 'sync' ? 'sync' : 'async' };
    case 'lease_acquired':
      return {
        kind: 'grant',
        holder: event.actor,
        resource: event.resource ?? '',
        token,
        server: server(d.server),
        ...(typeof d.expiresAt === 'string' ? { expiresAt: d.expiresAt } : {}),
      };
    case 'grant_waiting':
      return { kind: 'grant_waiting', holder: event.actor, waitedMs: Number(d.waitedMs ?? 0) };
    case 'write_accepted':
    case 'write_rejected':
      return {
        kind: 'write',
        holder: event.actor,
        token,
        value: text(d.value),
        server: server(d.server),
        accepted: event.kind === 'write_accepted',
        ...(event.storedToken === undefined ? {} : { rowToken: String(event.storedToken) }),
      };
    case 'standby_promoted': {
      const row = (d.row ?? {}) as { value?: unknown; lastToken?: unknown };
      const lease = d.lease as { resource?: unknown; holder?: unknown; token?: unknown } | null | undefined;
      const last = sequenceText(d.primaryLastValue);
      const ceiling = sequenceText(d.standbyCeiling);
      return {
        kind: 'standby_promoted',
        row: { value: text(row.value), lastToken: String(row.lastToken ?? 0) },
        lease: lease
          ? { resource: text(lease.resource), holder: text(lease.holder), token: String(lease.token) }
          : undefined,
        ...(last !== undefined && ceiling !== undefined
          ? { sequence: { primaryLastValue: last, standbyCeiling: ceiling } }
          : {}),
      };
    }
    case 'replication_cut': {
      const last = sequenceText(d.primaryLastValue);
      const count = typeof d.primaryLogCount === 'number' ? d.primaryLogCount : undefined;
      return last !== undefined && count !== undefined
        ? { kind: 'replication_cut', sequence: { primaryLastValue: last, primaryLogCount: count } }
        : { kind: 'replication_cut' };
    }
    case 'primary_killed': {
      const last = sequenceText(d.primaryLastValue);
      const ceiling = sequenceText(d.standbyCeiling);
      return last !== undefined && ceiling !== undefined
        ? { kind: 'primary_killed', sequence: { primaryLastValue: last, standbyCeiling: ceiling } }
        : { kind: 'primary_killed' };
    }
    case 'replication_healed': {
      if (d.caughtUp !== true) return { kind: 'replication_healed' };
      const ceiling = sequenceText(d.standbyCeiling);
      return {
        kind: 'replication_healed',
        caughtUp: {
          grants: count(d.grants),
          writes: count(d.writes),
          ...(ceiling === undefined ? {} : { standbyCeiling: ceiling }),
        },
      };
    }
    case 'pair_stopped':
      return { kind: event.kind };
    default:
      return undefined;
  }
}

/** The failover story a lab's events tell, in order (the walkthrough's progress reads it). */
export function failoverStepsOf(events: readonly WireEvent[]): FailoverStep[] {
  return events.flatMap((event) => {
    const step = failoverStepOf(event);
    return step ? [step] : [];
  });
}
