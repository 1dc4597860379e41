'use client';

import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { buildTimeline, cullTimeline, reuseUnchangedLanes, type Timeline as TimelineModel } from '@/lib/model/timeline';
import { useLabStore } from '../lab-store-provider';
import { useViewEvents, useViewNow } from '../replay/use-replay-view';
import { useFlaggedEvents } from '../verdict-banner';
import { AXIS_H, LABEL_W, LANE_H, ROW_LANE_H } from './geometry';
import { MarkDetails } from './mark-details';
import { TimelineToolbar } from './timeline-toolbar';
import { TrackLayer } from './track-layer';

const MIN_LANES = 2;
const noSubscription = () => () => undefined;
const REBUILD_MS = 1_000;
/** The drawn layer spans three windows on a one-window grid: panning redraws it every fourth step. */
const LAYER_WINDOWS = 3;

/**
 * The heart of the lab: one lane per holder and one for the database, drawn from the event log.
 * Every mark can be reached with the keyboard (Tab) and explains itself in the details panel.
 */
export function Timeline() {
  // Live, or up to the replay moment with that moment as "now".
  const events = useViewEvents();
  const replayAt = useLabStore((s) => s.replayAt);
  const windowMs = useLabStore((s) => s.windowMs);
  const viewEnd = useLabStore((s) => s.viewEnd);
  const selectMark = useLabStore((s) => s.selectMark);
  const now = useViewNow();
  const [width, setWidth] = useState(900);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => entry && setWidth(Math.max(480, entry.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const visibleLanes = useVisibleLanes(box);
  // Drawn in the browser only: the server's "now" is not the browser's, and the page must hydrate
  // to exactly what the server sent.
  const mounted = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );

  // Rebuilt from the log when it grows; between events only "now" moves, so once a second is enough
  // for what is still open (a freeze, a belief).
  // A replayed moment is drawn exactly: what is open ends at the moment, not at the next second.
  const nowBucket = replayAt ?? Math.floor(now / REBUILD_MS) * REBUILD_MS;
  const full: TimelineModel = useMemo(() => buildTimeline(events, nowBucket), [events, nowBucket]);
  const flagged = useFlaggedEvents();

  const end = viewEnd ?? now + windowMs * 0.08;
  const start = end - windowMs;
  const trackW = width - LABEL_W - 8;
  const pxPerMs = trackW / windowMs;
  // The layer starts a window before the view, on a one-window grid: it is redrawn only when the
  // view crosses a grid line, and slid (a compositor transform) in between. Lanes whose visible
  // marks did not change keep their identity, so that only the others are drawn again.
  const layerFrom = Math.floor((start - windowMs) / windowMs) * windowMs;
  const spanMs = windowMs * LAYER_WINDOWS;
  const previous = useRef<TimelineModel | undefined>(undefined);
  const timeline = useMemo(() => {
    const culled = reuseUnchangedLanes(previous.current, cullTimeline(full, layerFrom, layerFrom + spanMs));
    previous.current = culled;
    return culled;
  }, [full, layerFrom, spanMs]);
  const laneCount = Math.max(MIN_LANES, timeline.lanes.length);
  const rowTop = AXIS_H + laneCount * LANE_H;
  const height = rowTop + ROW_LANE_H + 8;
  const shift = (layerFrom - start) * pxPerMs;
  const nowX = (now - start) * pxPerMs;

  return (
    <section aria-labelledby="timeline-heading" className="rounded-lg border border-slate-200 dark:border-slate-800">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 px-4 py-2 dark:border-slate-800">
        <h2 id="timeline-heading" className="text-lg font-semibold">
          Timeline <span className="text-sm font-normal text-slate-600 dark:text-slate-400">(database time)</span>
        </h2>
        <TimelineToolbar now={now} />
      </div>
      <div ref={box}>
        {/* biome-ignore lint/a11y/useSemanticElements: a drawing of marks is a group, not a <fieldset> of form controls. */}
        <div
          role="group"
          aria-label={`Timeline of ${timeline.lanes.length} holder${timeline.lanes.length === 1 ? '' : 's'} and the database`}
          className="relative"
          style={{ height }}
        >
          <LaneHeaders holders={timeline.lanes.map((l) => l.holder)} rowTop={rowTop} height={height} />
          {timeline.lanes.length === 0 ? (
            <p
              className="absolute text-sm text-slate-500"
              style={{ left: LABEL_W + 12, top: AXIS_H + LANE_H / 2 - 10 }}
            >
              No holder yet: start a worker to see its lane.
            </p>
          ) : null}
          <div className="absolute top-0 overflow-hidden" style={{ left: LABEL_W, width: trackW + 8, height }}>
            {mounted ? (
              <div className="will-change-transform" style={{ transform: `translateX(${shift}px)` }}>
                <TrackLayer
                  timeline={timeline}
                  from={layerFrom}
                  spanMs={spanMs}
                  windowMs={windowMs}
                  pxPerMs={pxPerMs}
                  origin={full.from}
                  laneCount={laneCount}
                  rowTop={rowTop}
                  height={height}
                  until={replayAt ?? nowBucket + REBUILD_MS}
                  flagged={flagged}
                  onSelect={selectMark}
                  visibleLanes={visibleLanes}
                />
              </div>
            ) : null}
            {mounted && nowX >= 0 && nowX <= trackW + 8 ? (
              <div
                aria-hidden="true"
                className="pointer-events-none absolute top-0 border-l-2 border-dashed border-fuchsia-600 will-change-transform dark:border-fuchsia-400"
                style={{ height, transform: `translateX(${nowX}px)` }}
              >
                <span className="absolute bottom-1 right-1 text-xs font-semibold text-fuchsia-700 dark:text-fuchsia-300">
                  {replayAt === undefined ? 'now' : 'replay'}
                </span>
              </div>
            ) : null}
          </div>
        </div>
      </div>
      <MarkDetails timeline={timeline} />
    </section>
  );
}

const LANE_MARGIN = 2;

/**
 * Which lanes are on screen, give or take two: with fifty holders the timeline is taller than the
 * window, and drawing lanes nobody can see would only slow the ones they can.
 */
function useVisibleLanes(box: React.RefObject<HTMLDivElement | null>): readonly [number, number] {
  const [range, setRange] = useState<readonly [number, number]>([0, 12]);
  useEffect(() => {
    const update = () => {
      const element = box.current;
      if (!element) return;
      const top = element.getBoundingClientRect().top + AXIS_H;
      const first = Math.max(0, Math.floor(-top / LANE_H) - LANE_MARGIN);
      const last = Math.max(first, Math.ceil((window.innerHeight - top) / LANE_H) + LANE_MARGIN);
      setRange((current) => (current[0] === first && current[1] === last ? current : [first, last]));
    };
    update();
    window.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => {
      window.removeEventListener('scroll', update);
      window.removeEventListener('resize', update);
    };
  }, [box]);
  return range;
}

/** Lane names, outside the sliding track. */
function LaneHeaders({ holders, rowTop, height }: { holders: string[]; rowTop: number; height: number }) {
  return (
    <svg width={LABEL_W} height={height} className="absolute top-0 left-0" aria-hidden="true">
      {holders.map((holder, i) => (
        <g key={holder}>
          <line
            x1={0}
            x2={LABEL_W}
            y1={AXIS_H + i * LANE_H}
            y2={AXIS_H + i * LANE_H}
            className="stroke-slate-200 dark:stroke-slate-800"
          />
          <text x={12} y={AXIS_H + i * LANE_H + LANE_H / 2 + 6} className="fill-current text-lg font-bold">
            {holder}
          </text>
        </g>
      ))}
      <line x1={0} x2={LABEL_W} y1={rowTop} y2={rowTop} className="stroke-slate-300 dark:stroke-slate-700" />
      <text x={12} y={rowTop + ROW_LANE_H / 2 + 5} className="fill-current text-sm font-bold">
        database
      </text>
      <line
        x1={LABEL_W - 1}
        x2={LABEL_W - 1}
        y1={0}
        y2={rowTop + ROW_LANE_H}
        className="stroke-slate-300 dark:stroke-slate-700"
      />
    </svg>
  );
}
