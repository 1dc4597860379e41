import { failoverWalkthrough } from '../lib/model/failover/failover-walkthrough';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { walkthroughFor } from '../lib/model/walkthrough/walkthrough';

/*
 * "Step n of N" as a walkthrough's step counter shows it, N read from the walkthrough's own definition:
 * a step added to a story changes no test that does not look at that step.
 */

export function stepOf(lab: LabId, n: number): string {
  return `Step ${n} of ${stepCountOf(lab)}`;
}

/** How many steps a lab's walkthrough has (its definition's; the failover lab's is `failoverStepOf`'s). */
export function stepCountOf(lab: LabId): number {
  if (lab === 'failover') throw new Error("the failover lab's walkthrough depends on its mode: failoverStepOf");
  return walkthroughFor(lab).length;
}

/** The title of the step whose id is `id` in a lab's walkthrough, as its definition words it. */
export function stepTitleOf(lab: LabId, id: string): string {
  return walkthroughFor(lab)[stepNumberOf(lab, id) - 1]?.title as string;
}

/** The number (from 1) of the step whose id is `id` in a lab's walkthrough, as its definition orders them. */
export function stepNumberOf(lab: LabId, id: string): number {
  const index = walkthroughFor(lab).findIndex((step) => step.id === id);
  if (index < 0) throw new Error(`${lab}'s walkthrough has no step ${id}`);
  return index + 1;
}

/** The failover lab's, whose walkthrough depends on its replication mode (asynchronous by default). */
export function failoverStepOf(n: number, mode: 'async' | 'sync' = 'async'): string {
  return `Step ${n} of ${failoverWalkthrough(mode).length}`;
}

/** The last step's counter. */
export function lastStepOf(lab: LabId): string {
  return stepOf(lab, stepCountOf(lab));
}
