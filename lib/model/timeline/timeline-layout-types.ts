/*
 * The types of the one layout of the timeline (timeline-layout.ts lays it out): the shapes, the
 * words of a mark, the metrics and the options. In a module of their own so that the modules that
 * lay out a part (marks, axis, lab marks, words) read them without importing the layout that calls them.
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
