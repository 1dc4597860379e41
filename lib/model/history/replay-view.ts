import type { WireEvent } from '../core/wire';
import { eventsUntil, momentParam, type ReplayBounds } from './replay';

/*
 * The small pure pieces the replay and export UI shares: how a moment reads on screen, the stable
 * list of events shown at a moment, the permalink to a moment, and the names of exported files.
 */

/** "12.3 s of 40.0 s": the moment since the history's first event, out of the whole history. */
export function momentLabel(at: number, bounds: ReplayBounds): string {
  const s = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  return `${s(at - bounds.from)} of ${s(bounds.to - bounds.from)}`;
}

/** "12.3 s": the moment alone, as the replayed tables are labelled. */
export function momentOffsetLabel(at: number, bounds: ReplayBounds): string {
  return `${(Math.max(0, at - bounds.from) / 1000).toFixed(1)} s`;
}

/**
 * The events that had happened by `at` (and, with `upToId`, none after that event: a walkthrough
 * step's moment ends at the event that reached it), as the same array as `previous` when nothing
 * changed: while a replay plays, the moment moves every frame but the set of events only now and
 * then, and while a step is held, events come in after it; what is derived from that set (the
 * timeline, the verdict) is rebuilt, and drawn, only when the array changes.
 */
export function stableEventsUntil(
  previous: readonly WireEvent[] | undefined,
  events: readonly WireEvent[],
  at: number,
  upToId?: number,
): readonly WireEvent[] {
  const until = eventsUntil(events, at);
  const last = until.at(-1);
  const shown =
    upToId === undefined || last === undefined || last.id <= upToId ? until : until.filter((e) => e.id <= upToId);
  if (previous && previous.length === shown.length && shown.every((event, i) => event === previous[i])) {
    return previous;
  }
  return shown;
}

/** The link that opens a lab replaying at `at`. */
export function momentLink(origin: string, labId: string, at: number, from: number): string {
  return `${origin}/labs/${encodeURIComponent(labId)}?at=${momentParam(at, from)}`;
}

export type ExportKind = 'svg' | 'png' | 'json' | 'md';

/**
 * "fencing-lab-fenced-20260101T120000Z.svg": the lab and the time of the export, in ISO 8601's basic
 * format (no colons, which some file systems refuse), so that files sort by time.
 */
export function exportFileName(labId: string, kind: ExportKind, exportedAt: Date): string {
  const time = exportedAt
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  const safeId = labId.replace(/[^A-Za-z0-9-]/g, '_');
  return `fencing-lab-${safeId}-${time}.${kind}`;
}

/** Quiet after the last event that an export of a live lab still draws: a lab left idle is not a long empty axis. */
export const EXPORT_IDLE_TAIL_MS = 10_000;

/**
 * Where an export's timeline ends: at the replay moment while replaying; live, at the database's
 * "now", but no more than a short quiet stretch after the last event (a finished lab opened later).
 */
export function exportEnd(bounds: ReplayBounds | undefined, replayAt: number | undefined, dbNow: number): number {
  if (replayAt !== undefined) return replayAt;
  if (!bounds) return dbNow;
  return Math.max(bounds.to, Math.min(dbNow, bounds.to + EXPORT_IDLE_TAIL_MS));
}
