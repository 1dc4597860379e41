import type { Timeline } from './timeline';
import { axisDecor } from './timeline-layout-axis';
import { layoutLabMarks } from './timeline-layout-lab-marks';
import { layoutLane, layoutRow, type Scale, textWidth } from './timeline-layout-marks';
import { describeDatabaseLane, describeLaneByTime } from './timeline-layout-words';

/*
 * The one layout of the timeline. A pure step from the
 * timeline model to positioned shapes, each mark with the words that explain it. Every painter (the
 * screen's canvas, the SVG export) draws these shapes and nothing else, and the screen's list of
 * marks (keyboard, screen readers) reads these marks: the drawings cannot drift apart, nor their
 * wording. No React, no DOM, no clock.
 */

/** What a shape is painted with: a palette entry (lib/model/timeline/timeline-svg-theme.ts `Palette`) or a hatch. */
export type Paint =
  | 'text'
  | 'muted'
  | 'grid'
  | 'separator'
  | 'leaseFill'
  | 'leaseStroke'
  | 'beliefStroke'
  | 'pauseStroke'
  | 'accepted'
  | 'rejected'
  | 'onMark'
  | 'rowFill'
  | 'rowStroke'
  | 'wentBackFill'
  | 'wentBackStroke'
  | 'loss'
  | 'flag'
  | 'hatch-belief'
  | 'hatch-pause';

/** What a piece of text is, so that a test (and a painter) can find the lane names, tokens and write labels. */
export type TextRole =
  | 'lane-name'
  | 'token'
  | 'pause-label'
  | 'write-label'
  | 'row-label'
  | 'step-label'
  | 'axis'
  | 'glyph'
  | 'flag';

export type Shape =
  | {
      type: 'rect';
      x: number;
      y: number;
      w: number;
      h: number;
      fill: Paint;
      stroke?: Paint;
      dashed?: boolean;
      radius: number;
    }
  | { type: 'circle'; x: number; y: number; r: number; fill: Paint }
  | { type: 'line'; x1: number; y1: number; x2: number; y2: number; stroke: Paint }
  | {
      type: 'text';
      x: number;
      /** The baseline. */
      y: number;
      text: string;
      /** Font size in CSS px. */
      px: number;
      weight: 400 | 600 | 700 | 900;
      anchor: 'start' | 'middle';
      fill: Paint;
      role: TextRole;
    };

/** `lab`: a step of the whole lab (lib/model/timeline/timeline.ts `LabMark`), listed with the database lane. */
export type MarkKind =
  | 'lease'
  | 'belief'
  | 'pause'
  | 'write-accepted'
  | 'write-rejected'
  | 'life'
  | 'loss'
  | 'row'
  | 'lab';

/** A mark in words: what the details panel shows and a screen reader reads. */
export type MarkText = {
  /** Stable across rebuilds: `lease:<holder>:<grantEventId>`, `write:<eventId>`, `row:<eventId>`, … */
  key: string;
  kind: MarkKind;
  /** The holder's name, or `database` for the row's lane and the lab's steps. */
  lane: string;
  eventId?: number;
  /** Database time the mark starts at. */
  at: number;
  /** One sentence: "A's write "a-1" with token 7: accepted". */
  title: string;
  lines: string[];
  /** The checker named its event in a violation. */
  flagged: boolean;
};

export type LaidOutMark = MarkText & {
  /** Where it is drawn (hit box and focus ring), in the layout's coordinates. */
  box: { x: number; y: number; w: number; h: number };
  shapes: Shape[];
};

/** Every measure of the drawing, in CSS px. The presenter's are larger (labels of 18 px and more). */
export type TimelineMetrics = {
  labelW: number;
  laneH: number;
  rowLaneH: number;
  axisH: number;
  /** Lane names. */
  lanePx: number;
  /** Labels in bars, beside writes, on the axis. */
  labelPx: number;
  /** ✓ ✗ ▶ ✕ ↻ ■ ! ⚠ */
  glyphPx: number;
  writeR: number;
};

export type LayoutOptions = {
  /** The stretch of database time to lay out, and the width it is drawn in (lane names included). */
  from: number;
  to: number;
  width: number;
  metrics: TimelineMetrics;
  /** The axis counts seconds from here (the lab's first event). */
  origin: number;
  /** The row's last value is drawn up to here (now, or the replay moment). */
  until: number;
  /** Event ids the checker named in a violation. */
  flagged: ReadonlySet<number>;
  /** Lanes drawn even when there are fewer holders (empty ones). */
  minLanes?: number;
  /**
   * Only the marks of these holder lanes (first and last index, inclusive) are laid out: those
   * scrolled into view. Every lane keeps its place, name and separator; the database lane is always laid out.
   */
  laneRange?: readonly [number, number];
};

export type TimelineLayout = {
  width: number;
  height: number;
  /** One per holder, then the database lane: the name and where its band is. */
  lanes: Array<{ name: string; top: number; height: number; nameShape: Shape }>;
  /** The axis's ticks and labels, and the lane separators. */
  decor: Shape[];
  /** What overlaps [from, to], in drawing order. */
  marks: LaidOutMark[];
};

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
