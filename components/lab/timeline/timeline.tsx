'use client';

import { useCallback, useEffect, useId, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { runsOnFailoverPair } from '@/lib/labs/traits';
import { framedWindow } from '@/lib/model/timeline/timeline-frame';
import {
  layoutTimeline,
  type MarkText,
  SCREEN_METRICS,
  type TimelineMetrics,
} from '@/lib/model/timeline/timeline-layout';
import { useLabStore } from '../lab-store-provider';
import { useViewEvents, useViewMoment, useViewNow } from '../replay/use-replay-view';
import { useFlaggedEvents } from '../verdict-banner';
import { LaneNames } from './lane-names';
import { type DetailsHint, MarkDetails } from './mark-details';
import { MarkList } from './mark-list';
import { inListOrder, markPositions } from './mark-order';
import { TimelineCanvas } from './timeline-canvas';
import { TimelineToolbar } from './timeline-toolbar';
import { useMarkFocus } from './use-mark-focus';
import { useTimelineModel } from './use-timeline-model';
import { useVisibleLanes } from './use-visible-lanes';

const MIN_LANES = 2;
const MIN_WIDTH_PX = 240;
/** Below this many lane-name widths, the box is too narrow for the metrics asked for. */
const NARROW_LABEL_SHARE = 4;
const noSubscription = () => () => undefined;
const REBUILD_MS = 1_000;
/** The listed stretch spans three windows on a one-window grid: the list changes only when the view crosses a line. */
const STRETCH_WINDOWS = 3;

/** A moment drawn as a line across the lanes (the compare view's first difference); its words are said elsewhere. */
export type TimelineMarker = { at: number; label: string };

/**
 * The heart of the lab: one lane per holder and one for the database, drawn from the event log on
 * a canvas. Every mark is also a button in a list (keyboard, screen readers) and explains itself in
 * the details panel. `title` names it where a page shows more than one (the compare view).
 */
export function Timeline({
  metrics: wanted = SCREEN_METRICS,
  title = 'Timeline',
  marker,
  hint = 'full',
}: {
  metrics?: TimelineMetrics;
  title?: string;
  marker?: TimelineMarker;
  /** The hint under the lanes: shorter, or none, in presenter mode where the screen has no room for it. */
  hint?: DetailsHint;
}) {
  const headingId = useId();
  // Live, or up to the moment shown (a replay's, or a walkthrough step's gone past) with that moment as "now".
  const events = useViewEvents();
  const replayAt = useViewMoment();
  const stepShown = useLabStore((s) =>
    s.replayAt === undefined && s.stepMoment?.past ? s.stepMoment.step : undefined,
  );
  // The failover lab has no workers: its holders are granted the lease by the trainer's steps.
  const kind = useLabStore((s) => s.kind);
  const zoomedMs = useLabStore((s) => s.windowMs);
  const heldEnd = useLabStore((s) => s.viewEnd);
  const frame = useLabStore((s) => s.frame);
  const selectMark = useLabStore((s) => s.selectMark);
  const selected = useLabStore((s) => s.selectedMark);
  const now = useViewNow();
  const [width, setWidth] = useState(900);
  const box = useRef<HTMLDivElement>(null);
  // A projector's measures on a phone would leave the lanes a sliver beside their names: a narrow
  // box draws at the screen's.
  const metrics = width < wanted.labelW * NARROW_LABEL_SHARE ? SCREEN_METRICS : wanted;

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    // The drawing is as wide as its box, a phone's too: wider, its right end (now) would be cut off.
    const observer = new ResizeObserver(
      ([entry]) => entry && setWidth(Math.max(MIN_WIDTH_PX, Math.floor(entry.contentRect.width))),
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  // Drawn in the browser only: the server's "now" is not the browser's, and the page must hydrate
  // to exactly what the server sent.
  const mounted = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );

  // Folded in as the log grows; between events only "now" moves, so once a second is enough for what
  // is still open (a freeze, a belief). A replayed moment is drawn exactly.
  const nowBucket = replayAt ?? Math.floor(now / REBUILD_MS) * REBUILD_MS;
  const full = useTimelineModel(events, nowBucket);
  const flagged = useFlaggedEvents();

  // A walkthrough's step frames its evidence (with now); else the window the toolbar set.
  const framed = frame && framedWindow(frame, now);
  const end = framed?.end ?? heldEnd ?? now + zoomedMs * 0.08;
  const start = framed?.start ?? end - zoomedMs;
  const windowMs = framed ? framed.end - framed.start : zoomedMs;
  const viewEnd = framed ? end : heldEnd;
  const stretchFrom = Math.floor((start - windowMs) / windowMs) * windowMs;
  const stretchTo = stretchFrom + windowMs * STRETCH_WINDOWS;
  const until = replayAt ?? nowBucket + REBUILD_MS;
  const laneIndex = useMemo(() => new Map(full.lanes.map((lane, i) => [lane.holder, i])), [full.lanes]);
  const [firstLane, lastLane] = useVisibleLanes(box, metrics, full.lanes.length);
  // The marks of the stretch on the lanes on screen (and the database's), in words, from the layout
  // (which finds them by binary search).
  const listed = useMemo(() => {
    const options = { from: stretchFrom, to: stretchTo, width: 2 * metrics.labelW, metrics, until, flagged };
    const laneRange = [firstLane, lastLane] as const;
    return inListOrder(layoutTimeline(full, { ...options, origin: full.from, laneRange }).marks, laneIndex);
  }, [full, firstLane, lastLane, stretchFrom, stretchTo, metrics, until, flagged, laneIndex]);
  const positions = useMemo(() => markPositions(full), [full]);

  const laneCount = Math.max(MIN_LANES, full.lanes.length);
  const rowTop = metrics.axisH + laneCount * metrics.laneH;
  const height = rowTop + metrics.rowLaneH + 8;
  const laneTopOf = useCallback(
    (mark: MarkText) =>
      mark.kind === 'row' || mark.kind === 'lab'
        ? rowTop
        : metrics.axisH + (laneIndex.get(mark.lane) ?? 0) * metrics.laneH,
    [laneIndex, metrics, rowTop],
  );

  const { focus, items, onMove, onFocusMark, onLeave } = useMarkFocus(full, flagged, listed, laneIndex, {
    start,
    end,
    windowMs,
    viewEnd,
    now,
  });
  const focusedText = focus && (listed.find((m) => m.key === focus.mark.key) ?? focus.mark);

  const xOf = (at: number) => metrics.labelW + ((at - start) / windowMs) * (width - metrics.labelW);
  const nowX = xOf(now);
  const markerX = marker ? xOf(marker.at) : Number.NaN;
  const holders = full.lanes.map((l) => l.holder);

  return (
    <section aria-labelledby={headingId} className="rounded-lg border border-slate-200 dark:border-slate-800">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 px-4 py-2 dark:border-slate-800">
        <h2 id={headingId} className="text-lg font-semibold">
          {title} <span className="text-sm font-normal text-slate-600 dark:text-slate-400">(database time)</span>
        </h2>
        <TimelineToolbar now={now} shown={{ windowMs, end, framed: framed !== undefined }} />
      </div>
      <div ref={box}>
        {/* biome-ignore lint/a11y/useSemanticElements: a drawing of marks is a group, not a <fieldset> of form controls. */}
        <div
          role="group"
          aria-label={`Timeline of ${holders.length} holder${holders.length === 1 ? '' : 's'} and the database`}
          className="relative overflow-hidden"
          style={{ height }}
        >
          {mounted ? (
            <TimelineCanvas
              view={{
                timeline: full,
                from: start,
                to: end,
                width,
                height,
                metrics,
                origin: full.from,
                until,
                flagged,
                minLanes: MIN_LANES,
                focused: focus?.inList ? focus.mark.key : undefined,
              }}
              onHover={selectMark}
              onPick={selectMark}
            />
          ) : null}
          <LaneNames holders={holders} metrics={metrics} rowTop={rowTop} height={height} />
          {holders.length === 0 ? (
            <p
              className="absolute text-sm text-slate-500"
              style={{ left: metrics.labelW + 12, top: metrics.axisH + metrics.laneH / 2 - 10 }}
            >
              {runsOnFailoverPair(kind)
                ? 'No holder yet: start the pair and grant the lease to see its lane.'
                : 'No holder yet: start a worker to see its lane.'}
            </p>
          ) : null}
          {mounted && nowX >= metrics.labelW && nowX <= width ? (
            <div
              aria-hidden="true"
              className="pointer-events-none absolute top-0 left-0 border-l-2 border-dashed border-fuchsia-600 will-change-transform dark:border-fuchsia-400"
              style={{ height, transform: `translateX(${nowX}px)` }}
            >
              <span
                className="absolute bottom-1 right-1 font-semibold text-fuchsia-700 dark:text-fuchsia-300"
                style={{ fontSize: Math.max(12, metrics.labelPx - 4) }}
              >
                {replayAt === undefined ? 'now' : stepShown === undefined ? 'replay' : `step ${stepShown}`}
              </span>
            </div>
          ) : null}
          {mounted && marker && markerX >= metrics.labelW && markerX <= width ? (
            <div
              aria-hidden="true"
              data-testid="timeline-marker"
              className="pointer-events-none absolute top-0 left-0 border-l-4 border-amber-500 dark:border-amber-300"
              style={{ height, transform: `translateX(${markerX - 2}px)` }}
            >
              <span
                className="absolute top-0 left-1 rounded bg-amber-100 px-1 font-semibold whitespace-nowrap text-amber-950 dark:bg-amber-900 dark:text-amber-50"
                style={{ fontSize: Math.max(12, metrics.labelPx - 4) }}
              >
                {marker.label}
              </span>
            </div>
          ) : null}
          {mounted ? (
            <MarkList
              items={items}
              positionOf={positions.positionOf}
              total={positions.total}
              laneTopOf={laneTopOf}
              current={focus?.mark.key}
              focusPending={focus?.pending ?? false}
              onFocusMark={onFocusMark}
              onMove={onMove}
              onSelect={selectMark}
              onLeave={onLeave}
            />
          ) : null}
        </div>
      </div>
      <MarkDetails marks={listed} selected={selected} fallback={focusedText} hint={hint} />
    </section>
  );
}
