import { el, escapeXml, textNode, titleNode, truncate } from './svg-markup';
import { cullTimeline, type Timeline } from './timeline';
import { laneSvg, rowLaneSvg } from './timeline-svg-lanes';
import { hatchPatterns, PALETTES, type Palette, type SvgTheme } from './timeline-svg-theme';

/*
 * The timeline as a standalone SVG document, for slides and write-ups: the same lanes, shapes and
 * colours as the app's timeline, drawn from the same pure Timeline. No stylesheet, no web font, no
 * clock and no random ids: the same timeline gives the same bytes.
 */

export type TimelineSvgOptions = {
  title: string;
  /** Width of the document in px; the height follows from the number of lanes. */
  width?: number;
  /** The stretch of database time to draw (defaults: the whole timeline). */
  from?: number;
  to?: number;
  theme?: SvgTheme;
};

// The app's measures (components/lab/timeline/geometry.ts), so that an export reads like the screen.
const LABEL_W = 112;
const LANE_H = 76;
const ROW_LANE_H = 56;
const AXIS_H = 28;
const TITLE_H = 36;
const LEGEND_ROW_H = 28;
const LEGEND_CHAR_W = 6.6;
const RIGHT_PAD = 16;
const DEFAULT_WIDTH = 1280;
const MIN_WIDTH = LABEL_W + RIGHT_PAD + 200;
/** A timeline of one instant (or a window given backwards) still needs some width to draw on. */
const MIN_SPAN_MS = 1_000;
const AXIS_STEPS_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000];
const LABEL_MAX_CHARS = 14;
const FONT_FAMILY = 'system-ui, sans-serif';

export function timelineToSvg(timeline: Timeline, options: TimelineSvgOptions): string {
  const p = PALETTES[options.theme ?? 'light'];
  const width = Math.max(MIN_WIDTH, Math.round(options.width ?? DEFAULT_WIDTH));
  const from = options.from ?? timeline.from;
  const asked = options.to ?? timeline.to;
  const to = asked > from ? asked : from + MIN_SPAN_MS;
  const shown = cullTimeline(timeline, from, to);
  const trackW = width - LABEL_W - RIGHT_PAD;
  const x = (t: number) => LABEL_W + (Math.min(to, Math.max(from, t)) - from) * (trackW / (to - from));

  const axisTop = TITLE_H;
  const lanesTop = axisTop + AXIS_H;
  const rowTop = lanesTop + shown.lanes.length * LANE_H;
  const legendTop = rowTop + ROW_LANE_H;
  const key = legend(legendTop, width, p);
  const height = legendTop + key.height;

  const lanes = shown.lanes.map((lane, i) => {
    const top = lanesTop + i * LANE_H;
    return (
      separator(top, width, p) +
      el(
        'g',
        { 'data-lane-label': '' },
        titleNode(lane.holder),
        textNode(
          { x: 8, y: top + LANE_H / 2 + 5, fill: p.text, 'font-size': 14, 'font-weight': 700 },
          truncate(lane.holder, LABEL_MAX_CHARS),
        ),
      ) +
      laneSvg(lane, top, x, p)
    );
  });
  const database =
    separator(rowTop, width, p) +
    textNode({ x: 8, y: rowTop + ROW_LANE_H / 2 + 5, fill: p.text, 'font-size': 14, 'font-weight': 700 }, 'database') +
    rowLaneSvg(shown.row, rowTop, x, timeline.to, p);

  const description = `${shown.lanes.length} holder${shown.lanes.length === 1 ? '' : 's'} and the database row, by database time, ${((to - from) / 1000).toFixed(1)} s`;
  return `${[
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="timeline-title timeline-desc" font-family="${FONT_FAMILY}">`,
    `<title id="timeline-title">${escapeXml(options.title)}</title>`,
    `<desc id="timeline-desc">${escapeXml(description)}</desc>`,
    hatchPatterns(p),
    el('rect', { x: 0, y: 0, width, height, fill: p.background }),
    textNode({ x: 8, y: 24, fill: p.text, 'font-size': 18, 'font-weight': 700 }, options.title),
    axis(from, to, axisTop, legendTop, x, p),
    ...lanes,
    database,
    key.markup,
    '</svg>',
  ].join('\n')}\n`;
}

const separator = (y: number, width: number, p: Palette) =>
  el('line', { x1: 0, x2: width, y1: y, y2: y, stroke: p.separator });

/** Seconds since `from`, at about ten readable intervals, with a faint line down through the lanes. */
function axis(from: number, to: number, top: number, bottom: number, x: (t: number) => number, p: Palette): string {
  const step = AXIS_STEPS_MS.find((s) => (to - from) / s <= 10) ?? 600_000;
  const ticks: string[] = [];
  for (let t = from; t <= to; t += step) {
    const s = (t - from) / 1000;
    ticks.push(
      el('line', { x1: x(t), x2: x(t), y1: top + AXIS_H - 4, y2: bottom, stroke: p.grid }),
      textNode(
        { x: x(t), y: top + AXIS_H - 8, 'text-anchor': 'middle', fill: p.muted, 'font-size': 12 },
        `+${Number.isInteger(s) ? s : s.toFixed(2)} s`,
      ),
    );
  }
  return el('g', { 'data-axis': '', 'aria-hidden': 'true' }, ...ticks);
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
  const glyphs = '▶ started · ↻ restarted · ✕ crashed · ■ stopped · ! found out it lost its lease';
  parts.push(textNode({ x: 8, y: y + LEGEND_ROW_H + 16, fill: p.muted, 'font-size': 12 }, glyphs));
  return { markup: el('g', { 'data-legend': '' }, ...parts), height: y - top + 2 * LEGEND_ROW_H + 8 };
}
