import type { WireEvent } from '../core/wire';
import { isWorkerLabId, type LabId } from '../lab/lab-kinds';
import { walkthroughFor } from '../walkthrough/walkthrough';
import { walkthroughPosition } from '../walkthrough/walkthrough-progress';
import type { RunStep } from './history-diff';

/*
 * Where in the walkthrough's story a run was when a step of the comparison happened, in the words
 * the walkthrough shows ("step 5 of 7, “A wakes up”"), so that the compare page and the walkthrough
 * name the same moment the same way. Only for a run that tells the walkthrough's story (its
 * workers, in its order): of any other run, nothing is said.
 */

export function storyPlaceOf(kind: LabId, events: readonly WireEvent[], step: RunStep | undefined): string | undefined {
  if (!step || !isWorkerLabId(kind)) return undefined;
  const steps = walkthroughFor(kind);
  const reachedBy = (upTo: (event: WireEvent) => boolean) => {
    const position = walkthroughPosition(steps, events.filter(upTo), kind);
    return position.kind === 'at' ? position.step : undefined;
  };
  const before = reachedBy((event) => event.id < step.eventId);
  const after = reachedBy((event) => event.id <= step.eventId);
  if (before === undefined || after === undefined) return undefined;
  // An event that completes several steps at once (A's late write completes its step and the last,
  // which is told with it) is told in the first of them: the walkthrough narrates it there.
  const [word, index] = after > before ? ['at', before + 1] : ['after', before];
  const title = steps[index]?.title;
  return title === undefined ? undefined : `${word} the walkthrough's step ${index + 1} of ${steps.length}, “${title}”`;
}
