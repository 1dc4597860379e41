import type { z } from 'zod';
import { issueInWords } from '../core/input-words';
import { readNumberList, sweepInput } from './sweep-grid';

/*
 * The sweep form's fields read as the server will read them: each list as typed (naming the field
 * as the form labels it), then the server's own schema, in the server's own words. The form checks
 * with it before it asks, and again at every change once it has refused, so that a refusal stays
 * exactly as long as the fields are wrong.
 */

export const SWEEP_FIELD_LABELS = {
  pauses: 'Pause lengths (ms)',
  ttls: 'Lease TTLs (ms)',
  drifts: "A's clock drift (% slow)",
} as const;

export type SweepFormFields = { pauses: string; ttls: string; drifts: string; concurrency: number };

export type SweepFormReading = { ok: true; input: z.output<typeof sweepInput> } | { ok: false; error: string };

export function readSweepForm(fields: SweepFormFields): SweepFormReading {
  const lists = {
    pausesMs: readNumberList(SWEEP_FIELD_LABELS.pauses, fields.pauses),
    ttlsMs: readNumberList(SWEEP_FIELD_LABELS.ttls, fields.ttls),
    driftsPercent: readNumberList(SWEEP_FIELD_LABELS.drifts, fields.drifts),
  };
  const grid: Record<string, number[]> = {};
  for (const [key, list] of Object.entries(lists)) {
    if ('error' in list) return { ok: false, error: list.error };
    grid[key] = list.numbers;
  }
  const parsed = sweepInput.safeParse({ grid, concurrency: fields.concurrency });
  return parsed.success ? { ok: true, input: parsed.data } : { ok: false, error: issueInWords(parsed.error.issues[0]) };
}
