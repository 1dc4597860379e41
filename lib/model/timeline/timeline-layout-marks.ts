import type { BeliefBand, Lane, LeaseBar, LifeMark, LossMark, PauseBlock, RowChange, WriteMark } from './timeline';
import {
  type Kept,
  keptBelief,
  keptLease,
  keptLife,
  keptLoss,
  keptPause,
  keptRowChange,
  keptWrite,
} from './timeline-layout-kept';
import type { LaidOutMark, MarkText, Paint, Shape, TextRole, TimelineMetrics } from './timeline-layout-types';
import { flag, LIFE_GLYPH } from './timeline-layout-words';
import { type PlacedLabel, placeWriteLabels, type WriteToLabel } from './timeline-write-labels';

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

/** The longest span of a list, kept per list: a timeline's lists are never changed once handed out. */
const longest = new WeakMap<readonly object[], { length: number; ms: number }>();

function longestSpan(items: readonly { from: number; to: number }[]): number {
  let known = longest.get(items);
  if (!known || known.length !== items.length) {
    let ms = 0;
    for (const item of items) ms = Math.max(ms, item.to - item.from);
    known = { length: items.length, ms };
    longest.set(items, known);
  }
  return known.ms;
}

/**
 * The index range, in a list sorted by start, that holds every span overlapping [from, to]: none
 * that starts before `from` minus the list's longest span can reach the window. The range may hold
 * a few that ended before `from`: the caller skips those (`item.to < from`).
 */
export function spansIn<T extends { from: number; to: number }>(items: readonly T[], from: number, to: number) {
  const end = upperBound(items, to, fromOf);
  return [Math.min(end, lowerBound(items, from - longestSpan(items), fromOf)), end] as const;
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

type Box = LaidOutMark['box'];
type Drawn = { box: Box; shapes: Shape[] };

/**
 * A bar from t1 to t2 with its label inside, shortened (or left out) when the bar is too narrow to
 * hold it. `minW`: the least width in px (the row's last value stays visible).
 */
function bar(
  s: Scale,
  t1: number,
  t2: number,
  y: number,
  h: number,
  fill: Paint,
  stroke: Paint,
  kept: Kept,
  role: TextRole,
  dashed = false,
  minW = 0,
): Drawn {
  const px = s.metrics.labelPx;
  const x1 = clampX(s, t1);
  const x2 = Math.max(clampX(s, t2), Math.min(s.right, x1 + minW));
  const w = Math.max(3, x2 - x1);
  const room = x2 - x1 - 10;
  const label =
    textWidth(kept.label, px) <= room
      ? kept.label
      : kept.short !== '' && textWidth(kept.short, px) <= room
        ? kept.short
        : undefined;
  const rect: Shape = { type: 'rect', x: x1, y, w, h, fill, stroke, radius: 3 };
  if (dashed) rect.dashed = true;
  const shapes: Shape[] = [rect];
  if (label) shapes.push(text(x1 + 5, y + h / 2 + px * 0.375, label, px, 'text', role, 600));
  return { box: { x: x1, y, w, h }, shapes };
}

/** A laid-out mark, built field by field: one shape of object for every mark, on every frame. */
function laidOut(words: MarkText, box: Box, shapes: Shape[]): LaidOutMark {
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

/** The mark, with the ⚠ of a mark the checker named in a violation over its start (x, y). */
function marked(s: Scale, kept: Kept, drawn: Drawn, x: number, y: number): LaidOutMark {
  const words = flag(kept.words, s.flagged);
  if (words.flagged) drawn.shapes.push(text(x, y - 2, '⚠', s.metrics.glyphPx + 2, 'flag', 'flag', 900, 'middle'));
  return laidOut(words, drawn.box, drawn.shapes);
}

/** The labels of the lane's writes from index w0 to w1 (excluded), with the next write beyond in their way. */
function writeLabelsIn(lane: Lane, w0: number, w1: number, s: Scale): PlacedLabel[] {
  const writes: WriteToLabel[] = [];
  for (let i = w0; i < w1; i++) {
    const write = lane.writes[i] as WriteMark;
    writes.push({
      x: s.x(write.at),
      label: keptWrite(lane.holder, write).label,
      accepted: write.outcome === 'accepted',
      storedToken: write.storedToken,
    });
  }
  const beyond = lane.writes[w1];
  const geometry = {
    r: s.metrics.writeR,
    px: s.metrics.labelPx,
    gap: WRITE_LABEL_GAP,
    nextX: beyond && s.x(beyond.at),
    left: s.left,
    right: s.right,
  };
  return placeWriteLabels(writes, geometry);
}

/** Room between a write label and the marks either side of it, in px. */
const WRITE_LABEL_GAP = 3;

export function layoutLane(lane: Lane, top: number, s: Scale, out: LaidOutMark[]): void {
  const who = lane.holder;
  const m = s.metrics;
  const g = laneGeometry(m);
  const barY = top + g.barY;
  const pauseY = top + g.pauseY;
  const writeY = top + g.writeY;
  const { from, to } = s;

  const [l0, l1] = spansIn(lane.leases, from, to);
  for (let i = l0; i < l1; i++) {
    const lease = lane.leases[i] as LeaseBar;
    if (lease.to < from) continue;
    const kept = keptLease(who, lease);
    const drawn = bar(s, lease.from, lease.to, barY, g.barH, 'leaseFill', 'leaseStroke', kept, 'token');
    out.push(marked(s, kept, drawn, drawn.box.x, barY));
  }
  const [b0, b1] = spansIn(lane.beliefs, from, to);
  for (let i = b0; i < b1; i++) {
    const band = lane.beliefs[i] as BeliefBand;
    if (band.to < from) continue;
    const kept = keptBelief(who, band);
    const drawn = bar(s, band.from, band.to, barY, g.barH, 'hatch-belief', 'beliefStroke', kept, 'token', true);
    out.push(marked(s, kept, drawn, drawn.box.x, barY));
  }
  const [p0, p1] = spansIn(lane.pauses, from, to);
  for (let i = p0; i < p1; i++) {
    const pause = lane.pauses[i] as PauseBlock;
    if (pause.to < from) continue;
    const kept = keptPause(who, pause);
    const drawn = bar(s, pause.from, pause.to, pauseY, g.pauseH, 'hatch-pause', 'pauseStroke', kept, 'pause-label');
    out.push(marked(s, kept, drawn, drawn.box.x, pauseY));
  }
  const [w0, w1] = pointsIn(lane.writes, from, to);
  const px = m.labelPx;
  const r = m.writeR;
  const labels = writeLabelsIn(lane, w0, w1, s);
  let nextLabel = 0;
  for (let i = w0; i < w1; i++) {
    const write = lane.writes[i] as WriteMark;
    const kept = keptWrite(who, write);
    const x = s.x(write.at);
    const accepted = write.outcome === 'accepted';
    // Its own label, or a run's ending at it, placed where it overprints no other label or write.
    const placed = labels[nextLabel]?.last === i - w0 ? labels[nextLabel++] : undefined;
    const shapes: Shape[] = [
      { type: 'circle', x, y: writeY, r, fill: accepted ? 'accepted' : 'rejected' },
      text(x, writeY + (m.glyphPx - 1) * 0.35, accepted ? '✓' : '✗', m.glyphPx - 1, 'onMark', 'glyph', 700, 'middle'),
    ];
    if (placed) shapes.push(text(placed.x, writeY + px * 0.4, placed.text, px, 'text', 'write-label'));
    // The label may sit left of the mark (at the track's right edge): the box holds both, unless the
    // label is a run's, left of the run's other marks (their boxes are theirs).
    const boxed = placed && (placed.x > x || placed.first === placed.last) ? placed : undefined;
    const boxLeft = boxed ? Math.min(x - r, boxed.x) : x - r;
    const boxRight = boxed ? Math.max(x + r, boxed.x + boxed.width) : x + r;
    const box = { x: boxLeft, y: writeY - r, w: boxRight - boxLeft, h: 2 * r };
    out.push(marked(s, kept, { box, shapes }, x, writeY - r));
  }
  const [f0, f1] = pointsIn(lane.life, from, to);
  for (let i = f0; i < f1; i++) {
    const life = lane.life[i] as LifeMark;
    const x = s.x(life.at);
    const y = pauseY + g.pauseH / 2 + m.glyphPx * 0.35;
    const shapes = [text(x, y, LIFE_GLYPH[life.kind], m.glyphPx, 'text', 'glyph', 700, 'middle')];
    const box = { x: x - m.glyphPx / 2, y: pauseY, w: m.glyphPx, h: g.pauseH };
    out.push(marked(s, keptLife(who, life), { box, shapes }, x, pauseY));
  }
  const [o0, o1] = pointsIn(lane.losses, from, to);
  for (let i = o0; i < o1; i++) {
    const loss = lane.losses[i] as LossMark;
    const x = s.x(loss.at);
    const bang = text(x, barY + g.barH / 2 + m.glyphPx * 0.4, '!', m.glyphPx + 2, 'loss', 'glyph', 900, 'middle');
    const box = { x: x - m.glyphPx / 2, y: barY, w: m.glyphPx, h: g.barH };
    out.push(marked(s, keptLoss(who, loss), { box, shapes: [bang] }, x, barY));
  }
}

/** The database lane: the row's value and last_token as they changed, the last one until `until`. */
export function layoutRow(row: readonly RowChange[], top: number, until: number, s: Scale, out: LaidOutMark[]) {
  const g = laneGeometry(s.metrics);
  const y = top + g.rowBarY;
  // The change in force at `from` is drawn too; a change is drawn up to the next one.
  const first = Math.max(0, lowerBound(row, s.from, atOf) - 1);
  const end = upperBound(row, s.to, atOf);
  for (let i = first; i < end; i++) {
    const change = row[i] as RowChange;
    const next = row[i + 1];
    if (next ? next.at < s.from : until < s.from) continue;
    const wentBack = next !== undefined && next.token < change.token;
    const kept = keptRowChange(change, next);
    const fill = wentBack ? 'wentBackFill' : 'rowFill';
    const stroke = wentBack ? 'wentBackStroke' : 'rowStroke';
    const minW = next ? 0 : LAST_ROW_MIN_W;
    const drawn = bar(s, change.at, next ? next.at : until, y, g.rowBarH, fill, stroke, kept, 'row-label', false, minW);
    out.push(marked(s, kept, drawn, drawn.box.x, y));
  }
}

/** The row's last value is drawn at least this wide, even at `until`. */
const LAST_ROW_MIN_W = 4;
