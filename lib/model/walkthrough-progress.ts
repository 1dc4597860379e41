import type { Facts, Step } from './walkthrough';

/**
 * How far the walkthrough has got, judged only by what happened: the last step of the unbroken run
 * of completed steps from the first. A watcher cannot see the trainer's Next presses, only their
 * effects on the lab, so this is the step a watcher's narration follows. The first step (the reset)
 * counts as done as soon as there is a lab to look at.
 */
export function stepReachedBy(steps: readonly Step[], facts: Facts): number {
  let reached = 0;
  for (let i = 1; i < steps.length; i++) {
    if (!steps[i]?.done(facts)) break;
    reached = i;
  }
  return reached;
}
