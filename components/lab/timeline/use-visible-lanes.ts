'use client';

import { type RefObject, useEffect, useState } from 'react';
import type { TimelineMetrics } from '@/lib/model/timeline/timeline-layout';

const LANE_MARGIN = 2;

/**
 * Which lanes are on screen, give or take two: with fifty holders the timeline is taller than the
 * window, and listing marks nobody can see would only slow the ones they can.
 */
export function useVisibleLanes(
  box: RefObject<HTMLDivElement | null>,
  metrics: TimelineMetrics,
): readonly [number, number] {
  const [range, setRange] = useState<readonly [number, number]>([0, 12]);
  const { axisH, laneH } = metrics;
  useEffect(() => {
    const update = () => {
      const element = box.current;
      if (!element) return;
      const top = element.getBoundingClientRect().top + axisH;
      const first = Math.max(0, Math.floor(-top / laneH) - LANE_MARGIN);
      const last = Math.max(first, Math.ceil((window.innerHeight - top) / laneH) + LANE_MARGIN);
      setRange((current) => (current[0] === first && current[1] === last ? current : [first, last]));
    };
    update();
    window.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => {
      window.removeEventListener('scroll', update);
      window.removeEventListener('resize', update);
    };
  }, [box, axisH, laneH]);
  return range;
}
