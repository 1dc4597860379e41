import type { LabTraits } from './define';
import { type KindWith, LAB_IDS, LAB_KINDS, LABS, type LabId } from './index';

/* The questions code asks of a lab kind, each answered by its traits (define.ts). */

/** The kinds whose traits match `test`, in the registry's order. */
export function kindsWhere(test: (traits: LabTraits) => boolean): LabId[] {
  return LAB_KINDS.filter((kind) => test(kind.traits)).map((kind) => kind.id);
}

/** The one kind whose traits match `test` (a definition that matches none or two is a bug here). */
export function kindWhere(test: (traits: LabTraits) => boolean): LabId {
  const [kind, ...more] = kindsWhere(test);
  if (kind === undefined || more.length > 0) throw new Error(`not one lab kind matches: ${[kind, ...more].join(', ')}`);
  return kind;
}

/** The pause story's lab whose writes present a token from the sequence to the fenced write: the fenced lab. */
export const PAUSE_FENCED = kindWhere(
  (t) => t.story === 'pause' && t.fencing === 'fenced-write' && t.tokenSource === 'sequence',
);
/** The pause story's lab whose writes check nothing. */
export const PAUSE_UNFENCED = kindWhere((t) => t.story === 'pause' && t.fencing === 'none');

/** The labs whose workers may read a clock that runs slow (a setting per worker). */
export function hasDriftingClock(kind: LabId): kind is KindWith<{ clock: 'worker-may-drift' }> {
  return LABS[kind].traits.clock === 'worker-may-drift';
}

/** The labs whose workers reach PostgreSQL through a packet relay their app server owns (lib/os/packet-relay.ts), which can hold a write. */
export function hasPacketRelay(kind: LabId): kind is KindWith<{ transport: 'packet-relay' }> {
  return LABS[kind].traits.transport === 'packet-relay';
}

/** The labs whose story is the pause (not the drifting clock's, the delayed packet's or the failover's). */
export function hasPauseStory(kind: LabId): boolean {
  return LABS[kind].traits.story === 'pause';
}

/** The labs whose writes are fenced (the row's token refuses a stale write): the others are broken on purpose. */
export function isFencedKind(kind: LabId): boolean {
  return LABS[kind].checker.verdict === 'holds';
}

/** The lab whose writes go through the fenced write's own table, protected_rows (db/fenced-write.ts). */
export function writesProtectedRows(kind: LabId): boolean {
  return LABS[kind].table === 'protected_rows';
}

/** The labs whose holders are the server's own sessions on a pair of its own (lib/supervisor/failover/). */
export function runsOnFailoverPair(kind: LabId): boolean {
  return LABS[kind].traits.runner === 'failover-pair';
}

/** The labs whose row is guarded by a statement the trainee wrote (0033_your_guard_lab.sql). */
export function takesTraineeGuard(kind: LabId): boolean {
  return LABS[kind].traits.fencing === 'trainee-guard';
}

/**
 * The labs whose workers the supervisor runs: not the failover lab, whose holders are the server's
 * own sessions, nor "your guard", whose workers its attack runs. No chaos run or pause scenario there.
 */
export type WorkerLabId = KindWith<{ runner: 'supervised-workers' }>;
export const WORKER_LAB_IDS = LAB_IDS.filter(
  (id): id is WorkerLabId => LABS[id].traits.runner === 'supervised-workers',
) as readonly WorkerLabId[] as readonly [WorkerLabId, ...WorkerLabId[]];

export function isWorkerLabId(value: unknown): value is WorkerLabId {
  return (WORKER_LAB_IDS as readonly unknown[]).includes(value);
}

/** The kinds a browser may open as a private lab: every kind but a shared-only one. */
export type PrivateLabKind = Exclude<LabId, KindWith<{ visibility: 'shared-only' }>>;
export const PRIVATE_LAB_KINDS = LAB_IDS.filter(
  (id): id is PrivateLabKind => LABS[id].traits.visibility !== 'shared-only',
) as readonly PrivateLabKind[] as readonly [PrivateLabKind, ...PrivateLabKind[]];

/** Whether a lab id names a shared lab (a shared lab is named after its kind). */
export function isSharedLabId(value: unknown): value is LabId {
  return (LAB_IDS as readonly unknown[]).includes(value) && LABS[value as LabId].traits.visibility !== 'private-only';
}

/**
 * The walkthrough to watch after this one's: its side-by-side counterpart (the same story fenced, or
 * unfenced), or for the pause's broken labs the fenced lab, and for the fenced lab one that breaks.
 */
export function compareWith(kind: LabId): { lead: string; lab: LabId; words: string } {
  return LABS[kind].compareWith as { lead: string; lab: LabId; words: string };
}
