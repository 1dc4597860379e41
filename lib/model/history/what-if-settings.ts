import type { LabId } from '../../labs/index';
import { hasPauseStory, PAUSE_FENCED, PAUSE_UNFENCED } from '../../labs/traits';
import type { WireEvent } from '../core/wire';

/*
 * A what-if fork's settings and their bounds, without the schema that checks them (what-if.ts): the
 * browser's form reads these, and so loads no zod.
 */

export const WHAT_IF_LIMITS = {
  pauseMs: { min: 200, max: 20_000 },
  leaseTtlMs: { min: 500, max: 20_000 },
  renewEveryMs: { min: 100, max: 10_000 },
} as const;

export type WhatIfTimings = { pauseMs: number; leaseTtlMs: number; renewEveryMs: number };

/** A fork's fencing is the kind it runs in: the pause's fenced lab, or the one without a token check. */
export const FENCING_MODES = [PAUSE_FENCED, PAUSE_UNFENCED] as const;
export type FencingMode = (typeof FENCING_MODES)[number];

/** The form counts in tenths of a second: a freeze of 1,435 ms is offered as 1.4 s. */
const FORM_STEP_MS = 100;

/** The form's first values: the original's own settings (A's lease, how long A froze), where it recorded them. */
export function whatIfDefaults(events: readonly WireEvent[]): WhatIfTimings {
  const startA = events.find((e) => e.actor === 'A' && e.kind === 'worker_started');
  const woke = events.find((e) => e.actor === 'A' && e.kind === 'pause_ended');
  const num = (value: unknown, fallback: number, bounds: { min: number; max: number }) =>
    typeof value === 'number' && Number.isFinite(value)
      ? Math.min(bounds.max, Math.max(bounds.min, Math.round(value / FORM_STEP_MS) * FORM_STEP_MS))
      : fallback;
  return {
    pauseMs: num(woke?.detail.frozenMs, 3_000, WHAT_IF_LIMITS.pauseMs),
    leaseTtlMs: num(startA?.detail.leaseTtlMs, 3_000, WHAT_IF_LIMITS.leaseTtlMs),
    renewEveryMs: num(startA?.detail.renewEveryMs, 1_000, WHAT_IF_LIMITS.renewEveryMs),
  };
}

/**
 * Where the form's first values come from, in one sentence under the form: the original's recorded
 * freeze and settings, or, where it recorded none, a default said to be one (a freeze "until resumed"
 * is offered as the time A really stayed frozen, which the fork must fix in advance).
 */
export function whatIfDefaultsInWords(events: readonly WireEvent[]): string {
  const defaults = whatIfDefaults(events);
  const startA = events.find((e) => e.actor === 'A' && e.kind === 'worker_started');
  const woke = events.find((e) => e.actor === 'A' && e.kind === 'pause_ended');
  const s = (ms: number) => `${ms / 1000} s`;
  const pause =
    typeof woke?.detail.frozenMs === 'number'
      ? `the pause, ${s(defaults.pauseMs)}, is how long A stayed frozen in the original (a fork cannot wait for someone to resume it, so its freeze has a length)`
      : `the pause, ${s(defaults.pauseMs)}, is a default: A did not freeze in the original`;
  const lease =
    typeof startA?.detail.leaseTtlMs === 'number'
      ? `the lease TTL (${s(defaults.leaseTtlMs)}) and the renewal (every ${s(defaults.renewEveryMs)}) are A's in the original`
      : `the lease TTL (${s(defaults.leaseTtlMs)}) and the renewal (every ${s(defaults.renewEveryMs)}) are defaults: the original recorded no settings of A's`;
  return `Where the first values come from: ${pause}; ${lease}.`;
}

export { hasPauseStory };

/** The lab kind a fork runs in: fencing on is the fenced lab, off the lab without a token check. */
export function forkKind(mode: FencingMode): LabId {
  return mode;
}
