'use client';

import { memo, useCallback } from 'react';
import type { Timeline } from '@/lib/model/timeline';
import { AXIS_H, LANE_H } from './geometry';
import { LaneMarks, RowLane } from './lane-marks';
import { TimeAxis } from './time-axis';

type Props = {
  timeline: Timeline;
  /** The database time at the layer's left edge, and how many ms it spans. */
  from: number;
  spanMs: number;
  windowMs: number;
  pxPerMs: number;
  origin: number;
  laneCount: number;
  rowTop: number;
  height: number;
  until: number;
  flagged: Set<number>;
  onSelect: (key: string) => void;
  /** The lanes on screen (first, last index): only these are drawn. */
  visibleLanes: readonly [number, number];
};

/**
 * Every mark of the stretch [from, from + spanMs], drawn once. The timeline slides this layer with
 * a CSS transform as time passes, so that following "now" or panning costs no redraw.
 */
export const TrackLayer = memo(function TrackLayer(props: Props) {
  const { timeline, from, spanMs, windowMs, pxPerMs, origin, laneCount, rowTop, height, until, flagged, onSelect } =
    props;
  const { visibleLanes } = props;
  // Marks are placed relative to the lab's first event, so that moving the layer (its viewBox) does
  // not move, and redraw, every mark: only lanes whose content changed are drawn again.
  const x = useCallback((t: number) => (t - origin) * pxPerMs, [origin, pxPerMs]);
  const width = Math.ceil(spanMs * pxPerMs);
  const left = x(from);
  return (
    <svg
      width={width}
      height={height}
      viewBox={`${left} 0 ${width} ${height}`}
      className="block select-none font-sans"
      role="presentation"
    >
      <Patterns />
      <TimeAxis from={from} to={from + spanMs} windowMs={windowMs} origin={origin} x={x} height={height} />
      {Array.from({ length: laneCount }, (_, i) => (
        <line
          // biome-ignore lint/suspicious/noArrayIndexKey: lane separators are positions, not items.
          key={i}
          x1={left}
          x2={left + width}
          y1={AXIS_H + i * LANE_H}
          y2={AXIS_H + i * LANE_H}
          className="stroke-slate-200 dark:stroke-slate-800"
        />
      ))}
      <line x1={left} x2={left + width} y1={rowTop} y2={rowTop} className="stroke-slate-300 dark:stroke-slate-700" />
      {timeline.lanes.map((lane, i) =>
        i < visibleLanes[0] || i > visibleLanes[1] ? null : (
          <LaneMarks
            key={lane.holder}
            lane={lane}
            top={AXIS_H + i * LANE_H}
            x={x}
            onSelect={onSelect}
            flagged={flagged}
          />
        ),
      )}
      <RowLane changes={timeline.row} top={rowTop} x={x} until={until} onSelect={onSelect} flagged={flagged} />
    </svg>
  );
});

/** Hatches, so that belief and freeze read without colour. */
function Patterns() {
  return (
    <defs>
      <pattern id="hatch-belief" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <rect width="8" height="8" className="fill-amber-100 dark:fill-amber-950" />
        <line x1="0" y1="0" x2="0" y2="8" className="stroke-amber-600 dark:stroke-amber-400" strokeWidth="3" />
      </pattern>
      <pattern id="hatch-pause" width="6" height="6" patternUnits="userSpaceOnUse">
        <rect width="6" height="6" className="fill-slate-200 dark:fill-slate-700" />
        <path d="M0 0 L6 6 M6 0 L0 6" className="stroke-slate-500 dark:stroke-slate-300" strokeWidth="1" />
      </pattern>
    </defs>
  );
}
