import 'server-only';
import { z } from 'zod';
import { type LabSummary, sharedLab, summaryOf } from '../model/lab/lab-instance';
import { LAB_IDS } from '../model/lab/lab-kinds';
import type { Credentials } from './access';
import { privateLabsOf } from './lab-commands';

/*
 * The labs a browser may put side by side on /compare: every shared lab, and its own private labs
 * (open or closed), by the same owner check as their pages. Nothing else is offered, and an id in the
 * address that is not one of these is ignored; the live feed checks access again on its own.
 */

export async function comparableLabsOf(credentials: Credentials): Promise<LabSummary[]> {
  const mine = await privateLabsOf(credentials);
  return [...LAB_IDS.map((id) => summaryOf(sharedLab(id))), ...mine.map(summaryOf)];
}

const labParam = z.string().max(40).optional().catch(undefined);
// Not strict on purpose (lib/testing/strict-inputs.test.ts): a link's other query parameters are ignored.
const compareQuery = z.object({ a: labParam, b: labParam });

/** `?a=fenced&b=no-fencing`: the two labs asked for, each kept only if this browser may see it. */
export function chosenLabs(
  query: unknown,
  labs: readonly LabSummary[],
): { a: LabSummary | undefined; b: LabSummary | undefined } {
  const parsed = compareQuery.safeParse(query);
  const pick = (id: string | undefined) => (id === undefined ? undefined : labs.find((lab) => lab.id === id));
  return parsed.success ? { a: pick(parsed.data.a), b: pick(parsed.data.b) } : { a: undefined, b: undefined };
}
