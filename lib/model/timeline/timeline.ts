import type { WireEvent } from '../core/wire';
import { createTimelineBuilder } from './timeline-builder';
import type { Timeline } from './timeline-types';

export { createTimelineBuilder, type TimelineBuilder } from './timeline-builder';
export type {
  BeliefBand,
  LabMark,
  Lane,
  LeaseBar,
  LeaseEnd,
  LifeMark,
  LossMark,
  PauseBlock,
  RowChange,
  Timeline,
  WriteMark,
} from './timeline-types';

/*
 * The timeline, as a pure function of the event log: its types (timeline-types.ts, where the
 * builder and its fold read them) and the one call that builds it whole.
 */

/** Builds the timeline from events in id order. `now` is the database's clock, for what is still open. */
export function buildTimeline(events: readonly WireEvent[], now: number): Timeline {
  const builder = createTimelineBuilder();
  builder.append(events);
  return builder.at(now);
}
