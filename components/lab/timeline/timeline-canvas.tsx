'use client';

import { type MouseEvent, useEffect, useLayoutEffect, useRef } from 'react';
import type { Timeline } from '@/lib/model/timeline/timeline';
import { layoutTimeline, type TimelineLayout, type TimelineMetrics } from '@/lib/model/timeline/timeline-layout';
import { PALETTES } from '@/lib/model/timeline/timeline-svg-theme';
import { markAt, paintLayout } from './canvas-painter';
import { useDarkTheme } from './use-dark-theme';

export type CanvasView = {
  timeline: Timeline;
  /** The stretch of database time on screen. */
  from: number;
  to: number;
  width: number;
  height: number;
  metrics: TimelineMetrics;
  origin: number;
  until: number;
  flagged: ReadonlySet<number>;
  minLanes: number;
  /** The mark with the keyboard focus: drawn with a ring. */
  focused: string | undefined;
};

/** Where the drawing's rows are on screen, give or take a lane: only those are painted. */
function visibleRows(canvas: HTMLCanvasElement, height: number, margin: number): [number, number] {
  const top = canvas.getBoundingClientRect().top;
  return [Math.max(0, -top - margin), Math.min(height, window.innerHeight - top + margin)];
}

type Drawn = { view: CanvasView; dark: boolean };

/** Whether two renders draw the same picture: the same timeline, stretch, size, marks flagged and focused, theme. */
function sameDrawing({ view: a, dark }: Drawn, { view: b, dark: bDark }: Drawn): boolean {
  return (
    dark === bDark &&
    a.timeline === b.timeline &&
    a.from === b.from &&
    a.to === b.to &&
    a.width === b.width &&
    a.height === b.height &&
    a.metrics === b.metrics &&
    a.origin === b.origin &&
    a.until === b.until &&
    a.flagged === b.flagged &&
    a.minLanes === b.minLanes &&
    a.focused === b.focused
  );
}

/**
 * The timeline's marks on a canvas sized for the screen's pixel density. Any change to what it draws
 * (pan, zoom, resize, new events, the clock, the theme, the focus, scrolling, the pixel density) asks
 * for a frame; the layout and the paint run once in that frame, however many changes came before it.
 * A render that changes nothing drawn (a moment held still while the lab goes on) asks for none.
 */
export function TimelineCanvas({
  view,
  onHover,
  onPick,
}: {
  view: CanvasView;
  onHover: (key: string | undefined) => void;
  onPick: (key: string) => void;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const dark = useDarkTheme();
  const latest = useRef<Drawn>({ view, dark });
  latest.current = { view, dark };
  const drawn = useRef<Drawn | undefined>(undefined);
  const laidOut = useRef<TimelineLayout | undefined>(undefined);
  const frame = useRef<number | undefined>(undefined);
  const hovered = useRef<string | undefined>(undefined);

  const paint = useRef(() => {
    frame.current = undefined;
    const element = canvas.current;
    const ctx = element?.getContext('2d');
    if (!element || !ctx) return;
    drawn.current = latest.current;
    const { view: v, dark: isDark } = latest.current;
    const dpr = window.devicePixelRatio || 1;
    const backingW = Math.round(v.width * dpr);
    const backingH = Math.round(v.height * dpr);
    if (element.width !== backingW) element.width = backingW;
    if (element.height !== backingH) element.height = backingH;
    const [visibleTop, visibleBottom] = visibleRows(element, v.height, v.metrics.laneH);
    const { axisH, laneH } = v.metrics;
    const laneRange = [Math.floor((visibleTop - axisH) / laneH), Math.ceil((visibleBottom - axisH) / laneH)] as const;
    const layout = layoutTimeline(v.timeline, {
      laneRange,
      from: v.from,
      to: v.to,
      width: v.width,
      metrics: v.metrics,
      origin: v.origin,
      until: v.until,
      flagged: v.flagged,
      minLanes: v.minLanes,
    });
    laidOut.current = layout;
    paintLayout(
      { ctx, palette: PALETTES[isDark ? 'dark' : 'light'], dark: isDark, dpr, width: v.width, height: v.height },
      layout,
      { trackLeft: v.metrics.labelW, visibleTop, visibleBottom, focused: v.focused },
    );
  });

  const request = useRef(() => {
    if (frame.current === undefined) frame.current = requestAnimationFrame(paint.current);
  });

  // A render that changes what is drawn (the view's inputs are its props) asks for a frame, which coalesces them.
  useLayoutEffect(() => {
    if (!drawn.current || !sameDrawing(drawn.current, latest.current)) request.current();
  });

  useEffect(() => {
    const again = request.current;
    // Captured: a scroll inside a box (the presenter's drawing column) does not bubble to the window, and
    // only the rows on screen are painted; a page held at a moment has no tick to paint the rest.
    window.addEventListener('scroll', again, { passive: true, capture: true });
    window.addEventListener('resize', again);
    // A window dragged to a screen of another pixel density fires no resize: a page held at a moment
    // would keep a backing store of the old density (blurred, or too fine) until its next change.
    // The query names the density now, so it changes once; then it is asked again for the new one.
    let density: MediaQueryList | undefined;
    const watchDensity = () => {
      density?.removeEventListener('change', onDensity);
      density = window.matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
      density.addEventListener('change', onDensity);
    };
    const onDensity = () => {
      watchDensity();
      again();
    };
    watchDensity();
    return () => {
      density?.removeEventListener('change', onDensity);
      window.removeEventListener('scroll', again, { capture: true });
      window.removeEventListener('resize', again);
      if (frame.current !== undefined) cancelAnimationFrame(frame.current);
      frame.current = undefined;
    };
  }, []);

  const markUnder = (event: MouseEvent<HTMLCanvasElement>) => {
    const layout = laidOut.current;
    if (!layout) return undefined;
    const rect = event.currentTarget.getBoundingClientRect();
    return markAt(layout, event.clientX - rect.left, event.clientY - rect.top, latest.current.view.metrics.labelW);
  };

  return (
    // biome-ignore lint/a11y/noAriaHiddenOnFocusable: the canvas takes no focus (no tabIndex); the list of marks is what a keyboard and a screen reader reach.
    <canvas
      ref={canvas}
      aria-hidden="true"
      className="absolute top-0 left-0 block"
      style={{ width: view.width, height: view.height }}
      onPointerMove={(event) => {
        const key = markUnder(event)?.key;
        event.currentTarget.style.cursor = key ? 'pointer' : '';
        if (key !== hovered.current) {
          hovered.current = key;
          if (key) onHover(key);
        }
      }}
      onPointerLeave={() => {
        hovered.current = undefined;
      }}
      onClick={(event) => {
        const key = markUnder(event)?.key;
        if (key) onPick(key);
      }}
    />
  );
}
