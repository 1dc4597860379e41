import { failoverWalkthrough } from '../lib/model/failover/failover-walkthrough';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { walkthroughFor } from '../lib/model/walkthrough/walkthrough';

/*
 * "Step n of N" as a walkthrough's step counter shows it, N read from the walkthrough's own definition:
 * a step added to a story changes no test that does not look at that step.
 */

export function stepOf(lab: LabId, n: number): string {
  return `Step ${n} of ${walkthroughFor(lab).length}`;
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
  return stepOf(lab, walkthroughFor(lab).length);
}
