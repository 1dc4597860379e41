import { z } from 'zod';
import type { LabId } from '../../labs/index';
import { hasDriftingClock, kindWhere, PAUSE_FENCED, PAUSE_UNFENCED, type WorkerLabId } from '../../labs/traits';
import type { WorkerSettings } from '../lab/lab-inputs';
import { SWEEP_LIMITS } from './sweep-limits';

/*
 * The sweep's grid: the pause story run, for real, at every point of pause lengths × lease TTLs
 * (× A's clock drift), each point twice: in a lab without fencing and in a fenced one. Pure.
 */

export type SweepPoint = { pauseMs: number; ttlMs: number; driftPercent: number };
/** Without fencing, the lease alone; fenced, the token checked in the write's own statement. */
export type Fencing = 'unfenced' | 'fenced';
export const FENCINGS: readonly Fencing[] = ['unfenced', 'fenced'];

/** One run of the sweep: a point of the grid in one lab kind. `index` orders the runs. */
export type SweepRun = { index: number; point: SweepPoint; fencing: Fencing; kind: WorkerLabId };

const axis = (what: string, unit: string, bounds: { min: number; max: number }, max: number) =>
  z
    .array(
      z
        .number({ error: `${what} must be numbers (${unit})` })
        .int(`${what} must be whole numbers (${unit})`)
        .min(bounds.min, `${what} must be at least ${bounds.min} ${unit}`)
        .max(bounds.max, `${what} must be at most ${bounds.max} ${unit}`),
      { error: `${what} must be a list of numbers` },
    )
    .min(1, `give at least one of the ${what}`)
    .max(max, `at most ${max} ${what}`)
    .refine((values) => new Set(values).size === values.length, `the ${what} must not repeat a value`);

export const sweepGridSchema = z
  .object({
    pausesMs: axis('pause lengths', 'ms', SWEEP_LIMITS.pauseMs, SWEEP_LIMITS.valuesPerAxis),
    ttlsMs: axis('lease TTLs', 'ms', SWEEP_LIMITS.ttlMs, SWEEP_LIMITS.valuesPerAxis),
    driftsPercent: axis('clock drifts', '% slow', SWEEP_LIMITS.driftPercent, SWEEP_LIMITS.drifts).default([0]),
  })
  .strict()
  .refine((g) => g.pausesMs.length * g.ttlsMs.length * g.driftsPercent.length <= SWEEP_LIMITS.points, {
    message: `a sweep has at most ${SWEEP_LIMITS.points} points (pauses × TTLs × drifts)`,
  });

export type SweepGrid = { pausesMs: number[]; ttlsMs: number[]; driftsPercent: number[] };

export const sweepInput = z
  .object({
    grid: sweepGridSchema,
    concurrency: z
      .number({ error: 'runs at once must be a number' })
      .int('runs at once must be a whole number')
      .min(SWEEP_LIMITS.concurrency.min, `runs at once must be at least ${SWEEP_LIMITS.concurrency.min}`)
      .max(SWEEP_LIMITS.concurrency.max, `runs at once must be at most ${SWEEP_LIMITS.concurrency.max}`)
      .default(SWEEP_LIMITS.concurrency.default),
  })
  .strict();

/** A list typed as "200, 800 2000": whole numbers, or undefined where one is not. */
export function parseNumberList(text: string): number[] | undefined {
  const parts = text.split(/[\s,;]+/).filter((part) => part !== '');
  const numbers = parts.map(Number);
  return numbers.length > 0 && numbers.every((n) => Number.isFinite(n)) ? numbers : undefined;
}

/** A list the form's field holds, or what is wrong with it, naming the field (`label`, as the form shows it). */
export function readNumberList(label: string, text: string): { numbers: number[] } | { error: string } {
  const example = 'for example 200, 800, 2000';
  const parts = text.split(/[\s,;]+/).filter((part) => part !== '');
  if (parts.length === 0) return { error: `${label}: give at least one number, ${example}` };
  const bad = parts.find((part) => !Number.isFinite(Number(part)));
  if (bad !== undefined)
    return {
      error: `${label}: ${JSON.stringify(bad)} is not a number; write whole numbers separated by commas, ${example}`,
    };
  return { numbers: parts.map(Number) };
}

/** Axes in ascending order (the heat map's), the points drift by drift, TTL by TTL, pause by pause. */
export function sortedGrid(grid: SweepGrid): SweepGrid {
  const up = (values: number[]) => [...values].sort((a, b) => a - b);
  return { pausesMs: up(grid.pausesMs), ttlsMs: up(grid.ttlsMs), driftsPercent: up(grid.driftsPercent) };
}

export function sweepPoints(grid: SweepGrid): SweepPoint[] {
  const sorted = sortedGrid(grid);
  return sorted.driftsPercent.flatMap((driftPercent) =>
    sorted.ttlsMs.flatMap((ttlMs) => sorted.pausesMs.map((pauseMs) => ({ pauseMs, ttlMs, driftPercent }))),
  );
}

/**
 * The lab kind a run takes: a clock that keeps time runs in the pause's pair (fenced, and without a
 * token check); a drifting one in the drifting clock's pair, the only labs whose workers have that setting.
 */
export function labKindFor(fencing: Fencing, driftPercent: number): WorkerLabId {
  const fenced = fencing === 'fenced';
  if (driftPercent > 0) {
    return kindWhere(
      (t) => t.clock === 'worker-may-drift' && t.fencing === (fenced ? 'fenced-write' : 'none'),
    ) as WorkerLabId;
  }
  return (fenced ? PAUSE_FENCED : PAUSE_UNFENCED) as WorkerLabId;
}

/** Every run of the sweep, point by point, the unfenced run of each point before its fenced one. */
export function sweepRuns(grid: SweepGrid): SweepRun[] {
  return sweepPoints(grid).flatMap((point, i) =>
    FENCINGS.map((fencing, j) => ({
      index: i * FENCINGS.length + j,
      point,
      fencing,
      kind: labKindFor(fencing, point.driftPercent),
    })),
  );
}

/** The same point (the key of a heat map's cell). */
export const pointKey = (p: SweepPoint): string => `${p.pauseMs}/${p.ttlMs}/${p.driftPercent}`;

/** A renewal three times per TTL and a write five times (never under the schema's 100 ms). */
export function renewEveryMsFor(ttlMs: number): number {
  return Math.max(100, Math.round(ttlMs / 3));
}
export function writeEveryMsFor(ttlMs: number): number {
  return Math.max(100, Math.round(ttlMs / 5));
}

/** A longest write interval: B writes once when it takes over, then only renews. */
const B_QUIET_WRITE_EVERY_MS = 60_000;

/**
 * The two workers of a run at a point: A, with the drift (in a drifting-clock lab only), and B, whose
 * clock keeps time. Both hold the lease TTL; their renew and write intervals follow from it.
 */
export function sweepWorkers(point: SweepPoint, kind: LabId): { A: WorkerSettings; B: WorkerSettings } {
  const common = { leaseTtlMs: point.ttlMs, renewEveryMs: renewEveryMsFor(point.ttlMs) };
  const drifting = hasDriftingClock(kind);
  return {
    A: {
      name: 'A',
      ...common,
      writeEveryMs: writeEveryMsFor(point.ttlMs),
      ...(drifting ? { clockSlowPercent: point.driftPercent } : {}),
    },
    B: { name: 'B', ...common, writeEveryMs: B_QUIET_WRITE_EVERY_MS },
  };
}
