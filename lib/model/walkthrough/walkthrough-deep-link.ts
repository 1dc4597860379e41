import { z } from 'zod';

/*
 * A walkthrough deep link's `?step=N`, read by the walkthrough and presenter pages on the server: in
 * a module of its own, so that the walkthrough's client code (walkthrough-progress.ts) loads no zod.
 */

const stepQuery = z.coerce.number().int().min(1);

/**
 * The step (from 0) a deep link's `?step=N` (from 1) names, within the walkthrough's `count` steps;
 * undefined without one, or for anything that is not a step number.
 */
export function deepLinkedStep(raw: string | string[] | undefined, count: number): number | undefined {
  if (raw === undefined || Array.isArray(raw) || raw.trim() === '') return undefined;
  const parsed = stepQuery.safeParse(raw);
  return parsed.success ? Math.min(parsed.data, count) - 1 : undefined;
}
