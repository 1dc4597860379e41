import { el, escapeXml, textNode, titleNode } from '../core/svg-markup';
import type { Timeline } from './timeline';
import { type LaidOutMark, layoutTimeline, SCREEN_METRICS, type TimelineMetrics } from './timeline-layout';
import { markSvg, shapeSvg } from './timeline-svg-shapes';
import { hatchPatterns, PALETTES, type Palette, type SvgTheme } from './timeline-svg-theme';

/*
 * The timeline as a standalone SVG document, for slides and write-ups: the shapes and words of the
 * one layout (lib/model/timeline/timeline-layout.ts) that the screen draws too, under a title bar and over a
 * legend of its own. No stylesheet, no web font, no clock and no random ids: the same timeline
 * gives the same bytes.
 */

export type TimelineSvgOptions = {
  title: string;
  /** Width of the document in px; the height follows from the number of lanes. */
  width?: number;
  /** The stretch of database time to draw (defaults: the whole timeline). */
  from?: number;
  to?: number;
  theme?: SvgTheme;
  /** The screen's measures by default; the presenter's for a projector. */
  metrics?: TimelineMetrics;
  /** Event ids the checker named in a violation: their marks wear a ⚠ and say so. */
  flagged?: ReadonlySet<number>;
};

const TITLE_H = 36;
const LEGEND_ROW_H = 28;
const LEGEND_CHAR_W = 6.6;
const RIGHT_PAD = 16;
const BOTTOM_PAD = 8;
const DEFAULT_WIDTH = 1280;
const MIN_TRACK_W = 200;
/** A timeline of one instant (or a window given backwards) still needs some width to draw on. */
const MIN_SPAN_MS = 1_000;
const FONT_FAMILY = 'system-ui, sans-serif';
const LEAD_IN = 0.01;

export function timelineToSvg(timeline: Timeline, options: TimelineSvgOptions): string {
  const p = PALETTES[options.theme ?? 'light'];
  const metrics = options.metrics ?? SCREEN_METRICS;
  const width = Math.max(metrics.labelW + RIGHT_PAD + MIN_TRACK_W, Math.round(options.width ?? DEFAULT_WIDTH));
  // The whole timeline starts a little before its first event, so that a glyph there is not cut in half.
  const from = options.from ?? timeline.from - (timeline.to - timeline.from) * LEAD_IN;
  const asked = options.to ?? timeline.to;
  const to = asked > from ? asked : from + MIN_SPAN_MS;
  const layout = layoutTimeline(timeline, {
    from,
    to,
    width: width - RIGHT_PAD,
    metrics,
    origin: timeline.from,
    until: timeline.to,
    flagged: options.flagged ?? new Set(),
  });

  const legendTop = TITLE_H + layout.height + BOTTOM_PAD;
  const key = legend(legendTop, width, p);
  const height = legendTop + key.height;
  const byLane = new Map<string, LaidOutMark[]>(layout.lanes.map((lane) => [lane.name, []]));
  for (const mark of layout.marks) byLane.get(mark.lane)?.push(mark);

  const drawing = el(
    'g',
    { transform: `translate(0 ${TITLE_H})` },
    el(
      'clipPath',
      { id: 'track' },
      el('rect', { x: metrics.labelW, y: 0, width: layout.width - metrics.labelW, height: layout.height }),
    ),
    el('g', { 'data-axis': '', 'aria-hidden': 'true' }, ...layout.decor.map((shape) => shapeSvg(shape, p))),
    ...layout.lanes.map((lane) =>
      el(
        'g',
        { 'data-lane': lane.name },
        el('g', { 'data-lane-label': '' }, titleNode(lane.name), shapeSvg(lane.nameShape, p)),
        el('g', { 'clip-path': 'url(#track)' }, ...(byLane.get(lane.name) ?? []).map((mark) => markSvg(mark, p))),
      ),
    ),
  );

  const holders = timeline.lanes.length;
  const description = `${holders} holder${holders === 1 ? '' : 's'} and the database row, by database time, ${((to - from) / 1000).toFixed(1)} s`;
  return `${[
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="timeline-title timeline-desc" font-family="${FONT_FAMILY}">`,
    `<title id="timeline-title">${escapeXml(options.title)}</title>`,
    `<desc id="timeline-desc">${escapeXml(description)}</desc>`,
    hatchPatterns(p),
    el('rect', { x: 0, y: 0, width, height, fill: p.background }),
    textNode({ x: 8, y: 24, fill: p.text, 'font-size': 18, 'font-weight': 700 }, options.title),
    drawing,
    key.markup,
    '</svg>',
  ].join('\n')}\n`;
}

/** What each shape means, in words (the picture must not rely on colour alone), wrapped to the width. */
function legend(top: number, width: number, p: Palette): { markup: string; height: number } {
  const swatch =
    (fill: string, stroke: string, dashed = false) =>
    (left: number, y: number) =>
      el('rect', {
        x: left,
        y: y + 10,
        width: 22,
        height: 14,
        rx: 3,
        fill,
        stroke,
        'stroke-width': 1.5,
        'stroke-dasharray': dashed ? '5 3' : undefined,
      });
  const dot = (fill: string, glyph: string) => (left: number, y: number) =>
    el('circle', { cx: left + 11, cy: y + 17, r: 8, fill }) +
    textNode(
      { x: left + 11, y: y + 21, 'text-anchor': 'middle', fill: p.onMark, 'font-size': 11, 'font-weight': 700 },
      glyph,
    );
  const items: Array<[(left: number, y: number) => string, string]> = [
    [swatch(p.leaseFill, p.leaseStroke), 'lease (token)'],
    [swatch('url(#hatch-belief)', p.beliefStroke, true), 'believes it holds a lost lease'],
    [swatch('url(#hatch-pause)', p.pauseStroke), 'frozen'],
    [dot(p.accepted, '✓'), 'write accepted'],
    [dot(p.rejected, '✗'), 'write rejected (its token vs the row’s)'],
    [swatch(p.rowFill, p.rowStroke), 'row value · token'],
    [swatch(p.wentBackFill, p.wentBackStroke), 'overwritten by an older token'],
  ];
  let left = 8;
  let y = top;
  const parts: string[] = [];
  for (const [shape, label] of items) {
    const itemW = 28 + [...label].length * LEGEND_CHAR_W + 18;
    if (left > 8 && left + itemW > width) {
      left = 8;
      y += LEGEND_ROW_H;
    }
    parts.push(shape(left, y), textNode({ x: left + 28, y: y + 21, fill: p.text, 'font-size': 12 }, label));
    left += itemW;
  }
  // SVG collapses runs of spaces, so the glyphs are set apart by dots.
  const glyphs =
    '▶ started · ↻ restarted · ✕ crashed · ■ stopped · ! found out it lost its lease · ⚠ named by the checker';
  parts.push(textNode({ x: 8, y: y + LEGEND_ROW_H + 16, fill: p.muted, 'font-size': 12 }, glyphs));
  return { markup: el('g', { 'data-legend': '' }, ...parts), height: y - top + 2 * LEGEND_ROW_H + 8 };
}
