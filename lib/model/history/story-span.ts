import type { WireEvent } from '../core/wire';
import { isWorkerLabId, type LabId } from '../lab/lab-kinds';
import { walkthroughFor } from '../walkthrough/walkthrough';
import { eventsToReach, walkthroughPosition } from '../walkthrough/walkthrough-progress';
import { type ReplayBounds, storyBounds } from './replay';

/*
 * The stretch of a run that tells its story: from its first grant (storyBounds) to the moment the
 * walkthrough's last step was reached. A lab goes on after its story (its workers write until they
 * are stopped; a shared lab may run for an hour): a view fitted to the whole run would draw the story
 * as a sliver at its left edge. A run that has not reached its story's end, or tells none (a kind
 * without the walkthrough, a lab doing something else), spans all of its events.
 */
export function storySpan(kind: LabId, events: readonly WireEvent[]): ReplayBounds | undefined {
  const bounds = storyBounds(events);
  if (!bounds || !isWorkerLabId(kind)) return bounds;
  const steps = walkthroughFor(kind);
  const last = steps.length - 1;
  const position = walkthroughPosition(steps, events, kind);
  if (position.kind !== 'at' || position.step < last) return bounds;
  const end = events[eventsToReach(steps, events, last, kind) - 1]?.at;
  return end === undefined ? bounds : { from: bounds.from, to: Math.max(bounds.from, end) };
}
