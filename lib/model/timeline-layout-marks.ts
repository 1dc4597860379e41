import type { Lane, RowChange } from './timeline';
import type { LaidOutMark, MarkText, Paint, Shape, TextRole, TimelineMetrics } from './timeline-layout';
import {
  beliefLabel,
  describeBelief,
  describeLease,
  describeLife,
  describeLoss,
  describePause,
  describeRowChange,
  describeWrite,
  LIFE_GLYPH,
  leaseLabel,
  pauseLabel,
  rowLabel,
  writeLabel,
} from './timeline-layout-words';

/*
 * One holder's lane, and the database lane, as positioned shapes: the drawing of the timeline,
 * for every painter. Only what overlaps the window is laid out, found by binary search.
 */

/** Width of a character as a share of the font size: no font metrics in a pure module. */
export const CHAR_EM = 0.55;
/** UTF-16 units, not code points: close enough for labels, and no array per call on every frame. */
export const textWidth = (text: string, px: number): number => text.length * CHAR_EM * px;

/** Where things sit inside a lane, from the metrics: the screen's drawing at 12 px labels, scaled. */
export function laneGeometry(m: TimelineMetrics) {
  const barY = 8;
  const barH = m.labelPx + 8;
  const pauseY = barY + barH + 4;
  const pauseH = m.labelPx + 4;
  const writeY = pauseY + pauseH + m.writeR + 3;
  return { barY, barH, pauseY, pauseH, writeY, rowBarY: 12, rowBarH: m.labelPx + 16 };
}

export type Scale = {
  /** Where a database time is drawn (not clamped). */
  x: (t: number) => number;
  /** The track's edges: a bar cut by the window ends at its edge. */
  left: number;
  right: number;
  from: number;
  to: number;
  metrics: TimelineMetrics;
  flagged: ReadonlySet<number>;
};

const clampX = (s: Scale, t: number) => Math.min(s.right, Math.max(s.left, s.x(t)));

/** First index whose key is at or after `t` in a list sorted by that key. */
function lowerBound<T>(items: readonly T[], t: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(items[mid] as T) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose key is after `t`. */
function upperBound<T>(items: readonly T[], t: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(items[mid] as T) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const fromOf = (i: { from: number }) => i.from;
const atOf = (i: { at: number }) => i.at;

/**
 * The index range of the spans that overlap [from, to], in a list sorted by start. One holder's
 * leases, beliefs and freezes follow one another (one process, one lease at a time), so their ends
 * are in order too: the walk back from the first span starting in the window stops at the first
 * span that ended before it.
 */
export function spansIn<T extends { from: number; to: number }>(items: readonly T[], from: number, to: number) {
  const end = upperBound(items, to, fromOf);
  let start = Math.min(end, lowerBound(items, from, fromOf));
  while (start > 0 && (items[start - 1] as T).to >= from) start -= 1;
  return [start, end] as const;
}

export function pointsIn<T extends { at: number }>(items: readonly T[], from: number, to: number) {
  return [lowerBound(items, from, atOf), upperBound(items, to, atOf)] as const;
}

const text = (
  x: number,
  y: number,
  content: string,
  px: number,
  fill: Paint,
  role: TextRole,
  weight: 400 | 600 | 700 | 900 = 400,
  anchor: 'start' | 'middle' = 'start',
): Shape => ({ type: 'text', x, y, text: content, px, weight, anchor, fill, role });

type BarSpec = {
  t1: number;
  t2: number;
  y: number;
  h: number;
  fill: Paint;
  stroke: Paint;
  dashed?: boolean;
  label: string;
  short?: string;
  role: TextRole;
  /** The least width of the bar, in px (the row's last value stays visible). */
  minW?: number;
};

/** A bar with its label inside, shortened (or left out) when the bar is too narrow to hold it. */
function bar(s: Scale, b: BarSpec): { box: LaidOutMark['box']; shapes: Shape[] } {
  const px = s.metrics.labelPx;
  const x1 = clampX(s, b.t1);
  const x2 = Math.max(clampX(s, b.t2), b.minW === undefined ? x1 : Math.min(s.right, x1 + b.minW));
  const w = Math.max(3, x2 - x1);
  const room = x2 - x1 - 10;
  const label =
    textWidth(b.label, px) <= room ? b.label : b.short && textWidth(b.short, px) <= room ? b.short : undefined;
  const rect: Shape = { type: 'rect', x: x1, y: b.y, w, h: b.h, fill: b.fill, stroke: b.stroke, radius: 3 };
  if (b.dashed) rect.dashed = true;
  const shapes: Shape[] = [rect];
  if (label) shapes.push(text(x1 + 5, b.y + b.h / 2 + px * 0.375, label, px, 'text', b.role, 600));
  return { box: { x: x1, y: b.y, w, h: b.h }, shapes };
}

/** A laid-out mark, built field by field: one shape of object for every mark, on every frame. */
function laidOut(words: MarkText, box: LaidOutMark['box'], shapes: Shape[]): LaidOutMark {
  const mark: LaidOutMark = {
    key: words.key,
    kind: words.kind,
    lane: words.lane,
    at: words.at,
    title: words.title,
    lines: words.lines,
    flagged: words.flagged,
    box,
    shapes,
  };
  if (words.eventId !== undefined) mark.eventId = words.eventId;
  return mark;
}

/** The mark, with the ⚠ of a mark the checker named in a violation over its start. */
function withFlag(s: Scale, words: MarkText, box: LaidOutMark['box'], shapes: Shape[], x: number, y: number) {
  if (words.flagged) shapes.push(text(x, y - 2, '⚠', s.metrics.glyphPx + 2, 'flag', 'flag', 900, 'middle'));
  return laidOut(words, box, shapes);
}

export function layoutLane(lane: Lane, top: number, s: Scale, out: LaidOutMark[]): void {
  const who = lane.holder;
  const m = s.metrics;
  const g = laneGeometry(m);
  const barY = top + g.barY;
  const pauseY = top + g.pauseY;
  const writeY = top + g.writeY;
  const { from, to, flagged } = s;

  const [l0, l1] = spansIn(lane.leases, from, to);
  for (let i = l0; i < l1; i++) {
    const lease = lane.leases[i];
    if (!lease) continue;
    const words = describeLease(who, lease, flagged);
    const drawn = bar(s, {
      t1: lease.from,
      t2: lease.to,
      y: barY,
      h: g.barH,
      fill: 'leaseFill',
      stroke: 'leaseStroke',
      role: 'token',
      ...leaseLabel(lease),
    });
    out.push(withFlag(s, words, drawn.box, drawn.shapes, drawn.box.x, barY));
  }
  const [b0, b1] = spansIn(lane.beliefs, from, to);
  for (let i = b0; i < b1; i++) {
    const band = lane.beliefs[i];
    if (!band) continue;
    const drawn = bar(s, {
      t1: band.from,
      t2: band.to,
      y: barY,
      h: g.barH,
      fill: 'hatch-belief',
      stroke: 'beliefStroke',
      dashed: true,
      role: 'token',
      ...beliefLabel(band.token),
    });
    out.push(laidOut(describeBelief(who, band), drawn.box, drawn.shapes));
  }
  const [p0, p1] = spansIn(lane.pauses, from, to);
  for (let i = p0; i < p1; i++) {
    const pause = lane.pauses[i];
    if (!pause) continue;
    const words = describePause(who, pause, flagged);
    const drawn = bar(s, {
      t1: pause.from,
      t2: pause.to,
      y: pauseY,
      h: g.pauseH,
      fill: 'hatch-pause',
      stroke: 'pauseStroke',
      role: 'pause-label',
      ...pauseLabel(pause),
    });
    out.push(withFlag(s, words, drawn.box, drawn.shapes, drawn.box.x, pauseY));
  }
  const [w0, w1] = pointsIn(lane.writes, from, to);
  const px = m.labelPx;
  for (let i = w0; i < w1; i++) {
    const write = lane.writes[i];
    if (!write) continue;
    const words = describeWrite(who, write, flagged);
    const x = s.x(write.at);
    const accepted = write.outcome === 'accepted';
    const label = writeLabel(write);
    // A label only where it does not run into the next write; a rejection always keeps its tokens.
    const next = lane.writes[i + 1];
    const labelX = x + m.writeR + 3;
    const room = next ? s.x(next.at) - labelX - (m.writeR + 3) : Number.POSITIVE_INFINITY;
    const labelW = textWidth(label, px);
    const shown = !accepted || labelW <= room;
    const shapes: Shape[] = [
      { type: 'circle', x, y: writeY, r: m.writeR, fill: accepted ? 'accepted' : 'rejected' },
      text(x, writeY + (m.glyphPx - 1) * 0.35, accepted ? '✓' : '✗', m.glyphPx - 1, 'onMark', 'glyph', 700, 'middle'),
    ];
    if (shown) shapes.push(text(labelX, writeY + px * 0.4, label, px, 'text', 'write-label'));
    const box = { x: x - m.writeR, y: writeY - m.writeR, w: 2 * m.writeR + (shown ? 3 + labelW : 0), h: 2 * m.writeR };
    out.push(withFlag(s, words, box, shapes, x, writeY - m.writeR));
  }
  const [f0, f1] = pointsIn(lane.life, from, to);
  for (let i = f0; i < f1; i++) {
    const life = lane.life[i];
    if (!life) continue;
    const words = describeLife(who, life, flagged);
    const x = s.x(life.at);
    const y = pauseY + g.pauseH / 2 + m.glyphPx * 0.35;
    const shapes = [text(x, y, LIFE_GLYPH[life.kind], m.glyphPx, 'text', 'glyph', 700, 'middle')];
    out.push(withFlag(s, words, { x: x - m.glyphPx / 2, y: pauseY, w: m.glyphPx, h: g.pauseH }, shapes, x, pauseY));
  }
  const [o0, o1] = pointsIn(lane.losses, from, to);
  for (let i = o0; i < o1; i++) {
    const loss = lane.losses[i];
    if (!loss) continue;
    const words = describeLoss(who, loss, flagged);
    const x = s.x(loss.at);
    const bang = text(x, barY + g.barH / 2 + m.glyphPx * 0.4, '!', m.glyphPx + 2, 'loss', 'glyph', 900, 'middle');
    out.push(withFlag(s, words, { x: x - m.glyphPx / 2, y: barY, w: m.glyphPx, h: g.barH }, [bang], x, barY));
  }
}

/** The database lane: the row's value and last_token as they changed, the last one until `until`. */
export function layoutRow(row: readonly RowChange[], top: number, until: number, s: Scale, out: LaidOutMark[]) {
  const g = laneGeometry(s.metrics);
  // The change in force at `from` is drawn too; a change is drawn up to the next one.
  const first = Math.max(0, lowerBound(row, s.from, atOf) - 1);
  const end = upperBound(row, s.to, atOf);
  for (let i = first; i < end; i++) {
    const change = row[i];
    if (!change) continue;
    const next = row[i + 1];
    if (next ? next.at < s.from : until < s.from) continue;
    const wentBack = next !== undefined && next.token < change.token;
    const words = describeRowChange(change, next, s.flagged);
    const drawn = bar(s, {
      t1: change.at,
      t2: next ? next.at : until,
      y: top + g.rowBarY,
      h: g.rowBarH,
      fill: wentBack ? 'wentBackFill' : 'rowFill',
      stroke: wentBack ? 'wentBackStroke' : 'rowStroke',
      role: 'row-label',
      ...(next ? {} : { minW: 4 }),
      ...rowLabel(change, wentBack),
    });
    out.push(withFlag(s, words, drawn.box, drawn.shapes, drawn.box.x, top + g.rowBarY));
  }
}
