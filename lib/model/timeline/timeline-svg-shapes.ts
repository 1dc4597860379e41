import { el, textNode, titleNode } from '../core/svg-markup';
import { type LaidOutMark, markLabel, type Paint, type Shape } from './timeline-layout';
import { isHatch, type Palette } from './timeline-svg-theme';

/* The layout's shapes as SVG markup: the export is one more painter of lib/model/timeline/timeline-layout.ts. */

const STROKE_W = 1.5;
const DASH = '5 3';

const paint = (p: Palette, name: Paint): string => (isHatch(name) ? `url(#${name})` : p[name]);

export function shapeSvg(shape: Shape, p: Palette): string {
  switch (shape.type) {
    case 'rect':
      return el('rect', {
        x: shape.x,
        y: shape.y,
        width: shape.w,
        height: shape.h,
        rx: shape.radius,
        fill: paint(p, shape.fill),
        stroke: shape.stroke === undefined ? undefined : paint(p, shape.stroke),
        'stroke-width': shape.stroke === undefined ? undefined : STROKE_W,
        'stroke-dasharray': shape.dashed ? DASH : undefined,
      });
    case 'circle':
      return el('circle', { cx: shape.x, cy: shape.y, r: shape.r, fill: paint(p, shape.fill) });
    case 'line':
      return el('line', { x1: shape.x1, y1: shape.y1, x2: shape.x2, y2: shape.y2, stroke: paint(p, shape.stroke) });
    case 'text':
      return textNode(
        {
          x: shape.x,
          y: shape.y,
          'font-size': shape.px,
          'font-weight': shape.weight === 400 ? undefined : shape.weight,
          'text-anchor': shape.anchor === 'middle' ? 'middle' : undefined,
          fill: paint(p, shape.fill),
        },
        shape.text,
      );
  }
}

/** A mark: a group with its words as the first child (what a viewer shows on hover, and a screen reader reads). */
export function markSvg(mark: LaidOutMark, p: Palette): string {
  return el(
    'g',
    { 'data-mark': mark.kind, 'data-event-id': mark.eventId, 'data-key': mark.key },
    titleNode(markLabel(mark)),
    ...mark.shapes.map((shape) => shapeSvg(shape, p)),
  );
}
