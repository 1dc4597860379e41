'use client';

import { type RefObject, useEffect, useState } from 'react';
import type { TimelineMetrics } from '@/lib/model/timeline/timeline-layout';
import { listedLanes } from '@/lib/model/timeline/timeline-listed-lanes';

/**
 * The lanes whose marks are listed (listedLanes says which): all of a short timeline's; with fifty
 * holders, those on screen, found again as the window scrolls or changes size.
 */
export function useVisibleLanes(
  box: RefObject<HTMLDivElement | null>,
  metrics: TimelineMetrics,
  laneCount: number,
): readonly [number, number] {
  const [range, setRange] = useState<readonly [number, number]>(() =>
    listedLanes({ lanesTop: 0, windowHeight: 0, laneH: metrics.laneH, laneCount }),
  );
  const { axisH, laneH } = metrics;
  useEffect(() => {
    const update = () => {
      const element = box.current;
      if (!element) return;
      const [first, last] = listedLanes({
        lanesTop: element.getBoundingClientRect().top + axisH,
        windowHeight: window.innerHeight,
        laneH,
        laneCount,
      });
      setRange((current) => (current[0] === first && current[1] === last ? current : [first, last]));
    };
    update();
    window.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => {
      window.removeEventListener('scroll', update);
      window.removeEventListener('resize', update);
    };
  }, [box, axisH, laneH, laneCount]);
  return range;
}
