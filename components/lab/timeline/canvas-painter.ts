import type { LaidOutMark, Paint, Shape, TimelineLayout } from '@/lib/model/timeline/timeline-layout';
import { HATCHES, type Hatch, isHatch, type Palette } from '@/lib/model/timeline/timeline-svg-theme';

/*
 * The screen's painter: draws the one layout's shapes on a canvas, as the SVG export draws them
 * as elements. It knows colours and strokes, never where a mark goes nor what it says.
 */

const FONT_FAMILY = 'ui-sans-serif, system-ui, sans-serif';
const STROKE_W = 1.5;
const DASH = [5, 3];
/** The focused mark's ring: fuchsia, as the "now" cursor and the app's focus outlines. */
const FOCUS_RING = { light: '#c026d3', dark: '#e879f9', width: 3, pad: 3 } as const;

export type PaintTarget = {
  ctx: CanvasRenderingContext2D;
  palette: Palette;
  dark: boolean;
  /** Device pixels per CSS pixel. */
  dpr: number;
  /** The CSS size of the canvas. */
  width: number;
  height: number;
};

export type PaintOptions = {
  /** Marks are drawn right of the lane names only (they stay DOM text). */
  trackLeft: number;
  /** The vertical stretch on screen (CSS px of the canvas): shapes outside it are skipped. */
  visibleTop: number;
  visibleBottom: number;
  focused: string | undefined;
};

const patterns = new WeakMap<Palette, Map<Paint, CanvasPattern | null>>();

/** The belief's and the freeze's hatches (HATCHES, as the export draws them), so that they read without colour. */
function hatch(ctx: CanvasRenderingContext2D, palette: Palette, paint: Hatch) {
  let cache = patterns.get(palette);
  if (!cache) {
    cache = new Map();
    patterns.set(palette, cache);
  }
  const known = cache.get(paint);
  if (known !== undefined) return known;
  const spec = HATCHES[paint];
  const size = spec.size;
  const tile = document.createElement('canvas');
  tile.width = size;
  tile.height = size;
  const t = tile.getContext('2d');
  if (!t) return null;
  t.fillStyle = palette[spec.fill];
  t.fillRect(0, 0, size, size);
  t.strokeStyle = palette[spec.line];
  t.lineWidth = spec.lineW;
  t.beginPath();
  if (spec.pattern === 'stripes-45') {
    // As the export: a vertical line in the tile, the pattern turned 45°.
    t.moveTo(0, 0);
    t.lineTo(0, size);
  } else {
    t.moveTo(0, 0);
    t.lineTo(size, size);
    t.moveTo(size, 0);
    t.lineTo(0, size);
  }
  t.stroke();
  const pattern = ctx.createPattern(tile, 'repeat');
  if (pattern && spec.pattern === 'stripes-45') pattern.setTransform(new DOMMatrix().rotate(45));
  cache.set(paint, pattern);
  return pattern;
}

function colour(target: PaintTarget, paint: Paint): string | CanvasPattern {
  const { palette } = target;
  return isHatch(paint) ? (hatch(target.ctx, palette, paint) ?? palette.grid) : palette[paint];
}

function shapeTop(shape: Shape): [number, number] {
  switch (shape.type) {
    case 'rect':
      return [shape.y, shape.y + shape.h];
    case 'circle':
      return [shape.y - shape.r, shape.y + shape.r];
    case 'line':
      return [Math.min(shape.y1, shape.y2), Math.max(shape.y1, shape.y2)];
    case 'text':
      return [shape.y - shape.px, shape.y + shape.px / 3];
  }
}

function drawShape(target: PaintTarget, shape: Shape): void {
  const { ctx } = target;
  switch (shape.type) {
    case 'rect': {
      ctx.beginPath();
      ctx.roundRect(shape.x, shape.y, Math.max(0, shape.w), shape.h, shape.radius);
      ctx.fillStyle = colour(target, shape.fill);
      ctx.fill();
      if (shape.stroke) {
        ctx.strokeStyle = colour(target, shape.stroke);
        ctx.lineWidth = STROKE_W;
        ctx.setLineDash(shape.dashed ? DASH : []);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      return;
    }
    case 'circle':
      ctx.beginPath();
      ctx.arc(shape.x, shape.y, shape.r, 0, Math.PI * 2);
      ctx.fillStyle = colour(target, shape.fill);
      ctx.fill();
      return;
    case 'line':
      ctx.beginPath();
      // On the pixel grid, so that a 1 px line is one device pixel wide, not two half-tones.
      ctx.moveTo(snap(shape.x1, target.dpr), snap(shape.y1, target.dpr));
      ctx.lineTo(snap(shape.x2, target.dpr), snap(shape.y2, target.dpr));
      ctx.strokeStyle = colour(target, shape.stroke);
      ctx.lineWidth = 1;
      ctx.stroke();
      return;
    case 'text':
      ctx.font = `${shape.weight} ${shape.px}px ${FONT_FAMILY}`;
      ctx.textAlign = shape.anchor === 'middle' ? 'center' : 'left';
      ctx.textBaseline = 'alphabetic';
      ctx.fillStyle = colour(target, shape.fill);
      ctx.fillText(shape.text, shape.x, shape.y);
      return;
  }
}

const snap = (v: number, dpr: number) => (Math.round(v * dpr - 0.5) + 0.5) / dpr;

/** Paints the whole layout (decor, then the marks in drawing order, then the focus ring). */
export function paintLayout(target: PaintTarget, layout: TimelineLayout, options: PaintOptions): void {
  const { ctx, dpr, width, height } = target;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  // Only the rows on screen are cleared and painted: a tall drawing (fifty lanes) costs what is seen.
  const top = Math.max(0, options.visibleTop);
  const bottom = Math.min(height, options.visibleBottom);
  ctx.clearRect(0, top, width, bottom - top);
  ctx.save();
  ctx.beginPath();
  ctx.rect(options.trackLeft, top, width - options.trackLeft, bottom - top);
  ctx.clip();
  const onScreen = (shape: Shape) => {
    const [top, bottom] = shapeTop(shape);
    return bottom >= options.visibleTop && top <= options.visibleBottom;
  };
  for (const shape of layout.decor) if (onScreen(shape)) drawShape(target, shape);
  let focused: LaidOutMark | undefined;
  for (const mark of layout.marks) {
    if (mark.key === options.focused) focused = mark;
    if (mark.box.y > options.visibleBottom || mark.box.y + mark.box.h < options.visibleTop - 24) continue;
    for (const shape of mark.shapes) drawShape(target, shape);
  }
  if (focused) drawFocusRing(target, focused);
  ctx.restore();
}

function drawFocusRing(target: PaintTarget, mark: LaidOutMark): void {
  const { ctx } = target;
  const { x, y, w, h } = mark.box;
  const pad = FOCUS_RING.pad;
  ctx.beginPath();
  ctx.roundRect(x - pad, y - pad, Math.max(4, w) + pad * 2, h + pad * 2, 5);
  ctx.strokeStyle = target.dark ? FOCUS_RING.dark : FOCUS_RING.light;
  ctx.lineWidth = FOCUS_RING.width;
  ctx.setLineDash([]);
  ctx.stroke();
}

/** The mark under a point (CSS px of the layout), the topmost (last drawn) first. */
export function markAt(layout: TimelineLayout, x: number, y: number, trackLeft: number): LaidOutMark | undefined {
  if (x < trackLeft) return undefined;
  const slop = 2;
  for (let i = layout.marks.length - 1; i >= 0; i--) {
    const mark = layout.marks[i];
    if (!mark) continue;
    const { box } = mark;
    if (x >= box.x - slop && x <= box.x + box.w + slop && y >= box.y - slop && y <= box.y + box.h + slop) return mark;
  }
  return undefined;
}
