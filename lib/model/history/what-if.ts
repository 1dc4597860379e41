import { z } from 'zod';
import { isFencedKind } from '../../labs/traits';
import type { WireEvent } from '../core/wire';
import { labIdSchema } from '../lab/lab-inputs';
import { rowAt } from './replay';
import { FENCING_MODES, type FencingMode, WHAT_IF_LIMITS } from './what-if-settings';

/*
 * "What if…": the pause story run again, for real, from a moment of a lab's history, with other
 * settings (the pause length, the lease TTL, the renew interval, fencing or not), in a new private lab
 * of its own. A frozen process cannot be copied out of the past: the fork's workers are new processes.
 * What carries over from the moment is the state in the database: the row's value and token, and the
 * token sequence, which is already past every token the original saw (so every grant in the fork is
 * newer). Pure: the inputs and their limits, the state at the moment, the workers' settings.
 */

/** A day of history: a moment further than that from the first event is no moment of a story. */
const MAX_MOMENT_MS = 24 * 60 * 60_000;

/** The form asks in seconds, so a refusal shown under its field speaks seconds too (the bounds stay in ms). */
const inSeconds = (ms: number) => `${ms / 1000} s`;

const ms = (what: string, bounds: { min: number; max: number }) =>
  z
    .number({ error: `${what} must be a number of seconds` })
    .int(`${what} must be a whole number of milliseconds`)
    .min(bounds.min, `${what} must be at least ${inSeconds(bounds.min)}`)
    .max(bounds.max, `${what} must be at most ${inSeconds(bounds.max)}`);

export const whatIfInput = z
  .object({
    lab: labIdSchema,
    /** The moment, in ms since the lab's first event (as the replay's `?at=`). */
    atMs: z
      .number({ error: 'the moment must be a number of milliseconds' })
      .int('the moment must be a whole number of milliseconds')
      .min(0, 'the moment must not be before the first event')
      .max(MAX_MOMENT_MS, 'the moment is too far from the first event'),
    pauseMs: ms('pause length', WHAT_IF_LIMITS.pauseMs),
    leaseTtlMs: ms('lease TTL', WHAT_IF_LIMITS.leaseTtlMs),
    renewEveryMs: ms('renew interval', WHAT_IF_LIMITS.renewEveryMs),
    fencing: z.enum(FENCING_MODES, { error: `fencing must be one of: ${FENCING_MODES.join(', ')}` }),
  })
  .strict()
  .refine((s) => s.renewEveryMs < s.leaseTtlMs, {
    message: 'renew interval must be shorter than the lease TTL, or the lease lapses between renewals',
    path: ['renewEveryMs'],
  });

export type WhatIf = z.output<typeof whatIfInput>;

/** What the fork starts from: the original's row at the moment, and the highest token it had seen by then. */
export type ForkStart = {
  /** Database time of the moment in the original. */
  at: number;
  row: { value: string; lastToken: number } | undefined;
  highestTokenSeen: number;
};

export function forkStart(events: readonly WireEvent[], atMs: number): ForkStart | undefined {
  const first = events[0];
  if (!first) return undefined;
  const at = first.at + atMs;
  const row = rowAt(events, at);
  let highest = 0;
  for (const e of events) {
    if (e.at > at) continue;
    highest = Math.max(highest, e.token ?? 0, e.storedToken ?? 0);
  }
  return {
    at,
    row: row ? { value: row.value, lastToken: row.lastToken } : undefined,
    highestTokenSeen: highest,
  };
}

/** What a fork lab keeps of where it came from (labs.fork). */
export type ForkRecord = {
  from: string;
  atMs: number;
  pauseMs: number;
  leaseTtlMs: number;
  renewEveryMs: number;
  fencing: FencingMode;
  startRow: ForkStart['row'];
  highestTokenSeen: number;
};

/** A writes every 0.7 s (as in the walkthrough); B writes once and then renews quietly. */
const A_WRITE_EVERY_MS = 700;
const B_WRITE_EVERY_MS = 30_000;

export function whatIfWorkers(w: Pick<WhatIf, 'leaseTtlMs' | 'renewEveryMs'>) {
  const lease = { leaseTtlMs: w.leaseTtlMs, renewEveryMs: w.renewEveryMs };
  return {
    A: { name: 'A', ...lease, writeEveryMs: A_WRITE_EVERY_MS },
    B: { name: 'B', ...lease, writeEveryMs: B_WRITE_EVERY_MS },
  };
}

const s = (ms: number) => `${Number((ms / 1000).toFixed(2))} s`;

/**
 * A fork in one sentence: where it came from, what changed, and what it honestly started from. The
 * row differs by fencing mode: without fencing it starts as the original's was (its value and token);
 * fenced, it starts with the value, but the guard gives a new protected row the newest token handed
 * out when it is made (fl_create_protected_row), not the original's, so that no earlier grant can write it.
 */
export function describeFork(name: string, fork: ForkRecord, originalName: string): string {
  const value = fork.startRow ? JSON.stringify(fork.startRow.value) : undefined;
  const row = isFencedKind(fork.fencing)
    ? `${value ? `the row's value then (${value}; its token was ${fork.startRow?.lastToken})` : 'the row as it was then (never written)'}, on a fenced row whose token is the newest handed out when the fork opened, as the guard makes every new protected row,`
    : value
      ? `the row as it was then (${value}, token ${fork.startRow?.lastToken})`
      : 'the row as it was then (never written)';
  return `${name} is a what-if fork of ${originalName} from ${s(fork.atMs)}: pause ${s(fork.pauseMs)}, lease TTL ${s(fork.leaseTtlMs)}, renewed every ${s(fork.renewEveryMs)}, fencing ${isFencedKind(fork.fencing) ? 'on' : 'off'}. Its workers are new processes, not the original's resumed: they started from ${row} and took new tokens, past token ${fork.highestTokenSeen}, the newest the original had seen by then.`;
}
