'use client';

import { useEffect, useMemo, useRef, useState } from 'react';
import { buildTimeline, cullTimeline, type Lane, type Timeline as TimelineModel } from '@/lib/model/timeline';
import { useLabStore } from '../lab-store-provider';
import { useDbNow } from '../use-db-now';
import { useFlaggedEvents } from '../verdict-banner';
import { LaneMarks, RowLane } from './lane-marks';
import { MarkDetails } from './mark-details';
import { describeMarks } from './marks';
import { TimeAxis } from './time-axis';
import { TimelineToolbar } from './timeline-toolbar';

export const LABEL_W = 112;
export const LANE_H = 76;
export const ROW_LANE_H = 56;
export const AXIS_H = 28;
const MIN_LANES = 2;

export type Scale = { x: (t: number) => number; start: number; end: number; width: number };

/**
 * The heart of the lab: one lane per holder and one for the database, drawn from the event log.
 * Every mark can be reached with the keyboard (Tab) and explains itself in the details panel.
 */
export function Timeline() {
  const events = useLabStore((s) => s.events);
  const windowMs = useLabStore((s) => s.windowMs);
  const viewEnd = useLabStore((s) => s.viewEnd);
  const selectMark = useLabStore((s) => s.selectMark);
  const now = useDbNow();
  const [width, setWidth] = useState(900);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.max(480, entry.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // Rebuilt from the log when it grows; between events only "now" moves (rounded to keep it cheap).
  const nowBucket = Math.floor(now / 250) * 250;
  const full: TimelineModel = useMemo(() => buildTimeline(events, nowBucket), [events, nowBucket]);
  const flagged = useFlaggedEvents();

  const end = viewEnd ?? now + windowMs * 0.08;
  const start = end - windowMs;
  // Only what is on screen is drawn and described: a long history stays as fast as a short one.
  const margin = windowMs / 4;
  const visibleFrom = Math.floor((start - margin) / margin) * margin;
  const timeline = useMemo(
    () => cullTimeline(full, visibleFrom, visibleFrom + windowMs * 1.75),
    [full, visibleFrom, windowMs],
  );
  const marks = useMemo(() => describeMarks(timeline), [timeline]);
  const trackW = width - LABEL_W - 8;
  const scale: Scale = { start, end, width, x: (t) => LABEL_W + ((t - start) / windowMs) * trackW };
  const lanes: Lane[] = timeline.lanes;
  const origin = full.from;
  const laneCount = Math.max(MIN_LANES, lanes.length);
  const height = AXIS_H + laneCount * LANE_H + ROW_LANE_H + 8;

  return (
    <section aria-labelledby="timeline-heading" className="rounded-lg border border-slate-200 dark:border-slate-800">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 px-4 py-2 dark:border-slate-800">
        <h2 id="timeline-heading" className="text-lg font-semibold">
          Timeline <span className="text-sm font-normal text-slate-600 dark:text-slate-400">(database time)</span>
        </h2>
        <TimelineToolbar now={now} />
      </div>
      <div ref={box} className="relative overflow-hidden">
        {/* biome-ignore lint/a11y/useSemanticElements: an <svg> of marks cannot be a <fieldset>; it groups them. */}
        <svg
          width={width}
          height={height}
          role="group"
          aria-label={`Timeline of ${lanes.length} holder${lanes.length === 1 ? '' : 's'} and the database`}
          className="block select-none font-sans"
        >
          <Patterns />
          <defs>
            <clipPath id="track-clip">
              <rect x={LABEL_W} y={0} width={trackW + 8} height={height} />
            </clipPath>
          </defs>
          <TimeAxis scale={scale} origin={origin} height={height} />
          {lanes.length === 0 ? (
            <text x={LABEL_W + 12} y={AXIS_H + LANE_H / 2} className="fill-slate-500 text-sm">
              No holder yet: start a worker to see its lane.
            </text>
          ) : null}
          {lanes.map((lane, i) => (
            <LaneMarks
              key={lane.holder}
              lane={lane}
              top={AXIS_H + i * LANE_H}
              scale={scale}
              marks={marks}
              onSelect={selectMark}
              flagged={flagged}
            />
          ))}
          <RowLane
            changes={timeline.row}
            top={AXIS_H + laneCount * LANE_H}
            scale={scale}
            marks={marks}
            onSelect={selectMark}
            flagged={flagged}
          />
          <NowCursor x={scale.x(now)} height={height} />
        </svg>
      </div>
      <MarkDetails marks={marks} />
    </section>
  );
}

function NowCursor({ x, height }: { x: number; height: number }) {
  if (x < LABEL_W) return null;
  return (
    // biome-ignore lint/a11y/noAriaHiddenOnFocusable: an SVG <g> is not focusable; this only hides decoration.
    <g aria-hidden="true">
      <line
        x1={x}
        x2={x}
        y1={AXIS_H - 6}
        y2={height}
        className="stroke-fuchsia-600 dark:stroke-fuchsia-400"
        strokeWidth={2}
        strokeDasharray="4 3"
      />
      <text
        x={x - 4}
        y={height - 6}
        textAnchor="end"
        className="fill-fuchsia-700 text-xs font-semibold dark:fill-fuchsia-300"
      >
        now
      </text>
    </g>
  );
}

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
