'use client';

import { useMemo, useRef } from 'react';
import type { WireEvent } from '@/lib/model/core/wire';
import { createTimelineBuilder, type Timeline, type TimelineBuilder } from '@/lib/model/timeline/timeline';

/**
 * The timeline of the events shown, at `now`: folded in as the log grows (only the new events),
 * so that a history of 200,000 events is not read again at every tick of the clock. A log that is
 * not the one folded plus more (a reset, a replay moment moved back) is folded again from its start.
 */
export function useTimelineModel(events: readonly WireEvent[], now: number): Timeline {
  const builder = useRef<TimelineBuilder | undefined>(undefined);
  return useMemo(() => {
    builder.current ??= createTimelineBuilder();
    builder.current.sync(events);
    return builder.current.at(now);
  }, [events, now]);
}
