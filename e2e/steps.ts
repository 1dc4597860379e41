import type { FailoverMode } from '../lib/model/failover/failover-servers-at';
import { type FailoverStepId, failoverWalkthrough } from '../lib/model/failover/failover-walkthrough';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { walkthroughFor } from '../lib/model/walkthrough/walkthrough';

/*
 * "Step n of N" as a walkthrough's step counter shows it, N read from the walkthrough's own definition:
 * a step added to a story changes no test that does not look at that step.
 */

/** `step` by its id in the lab's walkthrough (its number from 1 where a loop counts them). */
export function stepOf(lab: LabId, step: string | number): string {
  return `Step ${typeof step === 'number' ? step : stepNumberOf(lab, step)} of ${stepCountOf(lab)}`;
}

/** How many steps a lab's walkthrough has (its definition's; the failover lab's is `failoverStepCountOf`'s). */
export function stepCountOf(lab: LabId): number {
  if (lab === 'failover') throw new Error("the failover lab's walkthrough depends on its mode: failoverStepCountOf");
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

/*
 * The failover lab's, whose walkthrough depends on its replication mode (asynchronous by default):
 * its steps found by id in `failoverWalkthrough(mode)`, as the other labs' in `walkthroughFor(lab)`.
 */

export function failoverStepOf(n: number, mode: FailoverMode = 'async'): string {
  return `Step ${n} of ${failoverStepCountOf(mode)}`;
}

/** How many steps the failover walkthrough has in `mode`. */
export function failoverStepCountOf(mode: FailoverMode = 'async'): number {
  return failoverWalkthrough(mode).length;
}

/** The title of the failover step whose id is `id`, as its definition words it in `mode`. */
export function failoverStepTitleOf(id: FailoverStepId, mode: FailoverMode = 'async'): string {
  return failoverWalkthrough(mode)[failoverStepNumberOf(id, mode) - 1]?.title as string;
}

/** The number (from 1) of the failover step whose id is `id`, as its definition orders them in `mode`. */
export function failoverStepNumberOf(id: FailoverStepId, mode: FailoverMode = 'async'): number {
  const index = failoverWalkthrough(mode).findIndex((step) => step.id === id);
  if (index < 0) throw new Error(`the failover lab's ${mode} walkthrough has no step ${id}`);
  return index + 1;
}

/** A failover step's heading as the walkthrough shows it: "Step n: its title". */
export function failoverStepHeadingOf(id: FailoverStepId, mode: FailoverMode = 'async'): string {
  return `Step ${failoverStepNumberOf(id, mode)}: ${failoverStepTitleOf(id, mode)}`;
}

/** The last step's counter. */
export function lastStepOf(lab: LabId): string {
  return stepOf(lab, stepCountOf(lab));
}
