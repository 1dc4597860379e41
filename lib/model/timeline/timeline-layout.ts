import type { Timeline } from './timeline';
import { axisDecor } from './timeline-layout-axis';
import { layoutLabMarks } from './timeline-layout-lab-marks';
import { layoutLane, layoutRow, type Scale, textWidth } from './timeline-layout-marks';
import type {
  LaidOutMark,
  LayoutOptions,
  MarkText,
  Shape,
  TimelineLayout,
  TimelineMetrics,
} from './timeline-layout-types';
import { describeDatabaseLane, describeLaneByTime } from './timeline-layout-words';

export type {
  LaidOutMark,
  LayoutOptions,
  MarkKind,
  MarkText,
  Paint,
  Shape,
  TextRole,
  TimelineLayout,
  TimelineMetrics,
} from './timeline-layout-types';

/*
 * The one layout of the timeline. A pure step from the
 * timeline model to positioned shapes, each mark with the words that explain it. Every painter (the
 * screen's canvas, the SVG export) draws these shapes and nothing else, and the screen's list of
 * marks (keyboard, screen readers) reads these marks: the drawings cannot drift apart, nor their
 * wording. No React, no DOM, no clock.
 */

/** Today's screen: lane names of 18 px, labels of 12 px. */
export const SCREEN_METRICS: TimelineMetrics = {
  labelW: 112,
  laneH: 76,
  rowLaneH: 56,
  axisH: 28,
  lanePx: 18,
  labelPx: 12,
  glyphPx: 14,
  writeR: 9,
};

/** For a projector: every name and label of 20 px or more (the bar is 18 px at 1280×720), lanes to hold them. */
export const PRESENTER_METRICS: TimelineMetrics = {
  labelW: 176,
  laneH: 108,
  rowLaneH: 72,
  axisH: 40,
  lanePx: 24,
  labelPx: 20,
  glyphPx: 22,
  writeR: 14,
};

/** Left margin of the lane names. */
const NAME_X = 12;

/** At most as many characters as fit in `room` px at `px`, with an ellipsis when cut. */
function fitText(text: string, px: number, room: number): string {
  if (textWidth(text, px) <= room) return text;
  const chars = [...text];
  let n = chars.length - 1;
  while (n > 0 && textWidth(`${chars.slice(0, n).join('')}…`, px) > room) n -= 1;
  return `${chars.slice(0, n).join('')}…`;
}

/**
 * The drawing of [from, to] at `width` px: lane names on the left (`labelW`), the track to the
 * right of them. Only the marks that overlap the window are laid out, each found by binary search
 * in its lane's time-ordered lists: cheap enough for every frame of a pan or a zoom. Bars are cut
 * at the track's edges; a write or a glyph at an edge, or a label, may reach past them: a painter
 * clips the marks to the track (x from `labelW` to `width`).
 */
export function layoutTimeline(timeline: Timeline, options: LayoutOptions): TimelineLayout {
  const m = options.metrics;
  const from = options.from;
  const to = options.to > from ? options.to : from + 1;
  const left = m.labelW;
  const right = Math.max(left + 1, options.width);
  const pxPerMs = (right - left) / (to - from);
  const x = (t: number) => left + (t - from) * pxPerMs;
  const laneCount = Math.max(options.minLanes ?? 0, timeline.lanes.length);
  const rowTop = m.axisH + laneCount * m.laneH;
  const height = rowTop + m.rowLaneH;
  const scale: Scale = { x, left, right, from, to, metrics: m, flagged: options.flagged };

  const nameOf = (name: string, top: number, laneH: number): Shape => ({
    type: 'text',
    x: NAME_X,
    y: top + laneH / 2 + m.lanePx / 3,
    text: fitText(name, m.lanePx, m.labelW - NAME_X - 4),
    px: m.lanePx,
    weight: 700,
    anchor: 'start',
    fill: 'text',
    role: 'lane-name',
  });
  const lanes: TimelineLayout['lanes'] = timeline.lanes.map((lane, i) => {
    const top = m.axisH + i * m.laneH;
    return { name: lane.holder, top, height: m.laneH, nameShape: nameOf(lane.holder, top, m.laneH) };
  });
  lanes.push({ name: 'database', top: rowTop, height: m.rowLaneH, nameShape: nameOf('database', rowTop, m.rowLaneH) });

  const decor: Shape[] = axisDecor({ ...options, to }, x, height);
  for (let i = 0; i <= laneCount; i++) {
    const y = m.axisH + i * m.laneH;
    decor.push({ type: 'line', x1: 0, x2: right, y1: y, y2: y, stroke: 'separator' });
  }
  decor.push({ type: 'line', x1: left - 1, x2: left - 1, y1: 0, y2: height, stroke: 'separator' });

  const marks: LaidOutMark[] = [];
  const [first, last] = options.laneRange ?? [0, timeline.lanes.length - 1];
  for (let i = Math.max(0, first); i <= Math.min(last, timeline.lanes.length - 1); i++) {
    const lane = timeline.lanes[i];
    if (lane) layoutLane(lane, m.axisH + i * m.laneH, scale, marks);
  }
  layoutRow(timeline.row, rowTop, options.until, scale, marks);
  layoutLabMarks(timeline.labMarks, { top: m.axisH, rowTop }, scale, marks);
  return { width: right, height, lanes, decor, marks };
}

/** What a mark is called (a screen reader's name for it, an export's <title>): its words in one line. */
export function markLabel(mark: MarkText): string {
  return `${mark.flagged ? 'Violation: ' : ''}${mark.title}. ${mark.lines.join('. ')}`;
}

/** Every mark of the whole timeline in words, without geometry, lane by lane and by time within a lane. */
export function describeTimeline(timeline: Timeline, flagged: ReadonlySet<number>): MarkText[] {
  const marks = timeline.lanes.flatMap((lane) => describeLaneByTime(lane, flagged));
  marks.push(...describeDatabaseLane(timeline.row, timeline.labMarks, flagged));
  return marks;
}
