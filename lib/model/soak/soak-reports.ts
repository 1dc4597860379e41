import { z } from 'zod';
import { LAB_IDS, type LabId } from '../lab/lab-kinds';

/*
 * A soak report's id: the time it started (UTC, to the second) and its seed, e.g.
 * 20261201-031200-seed1. The app finds a report by this id alone, which it checks against the
 * pattern before it makes a path of it: never a path from a client.
 */

const SOAK_ID_PATTERN = /^\d{8}-\d{6}-seed\d{1,10}$/;

export const soakIdSchema = z.string().regex(SOAK_ID_PATTERN, 'not a soak report id');
export const soakLabSchema = z.enum(LAB_IDS);

export function soakReportId(startedAt: Date, seed: number): string {
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-seed${seed}`;
}

export function isSoakId(value: string): boolean {
  return SOAK_ID_PATTERN.test(value);
}

/** Where the app serves a report's page, and a lab's history from it. */
export const soakReportHref = (id: string): string => `/soak/${id}`;
export const soakHistoryHref = (id: string, lab: LabId): string => `/soak/${id}/history/${lab}`;
