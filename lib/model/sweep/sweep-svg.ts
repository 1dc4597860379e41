import { el, textNode, titleNode } from '../core/svg-markup';
import { PALETTES, type SvgTheme } from '../timeline/timeline-svg-theme';
import type { HeatmapLayout } from './sweep-heatmap';

/*
 * The sweep's heat map as a standalone SVG document, drawn from the one layout the page draws
 * (sweep-heatmap.ts) in the timeline's palette, light or dark: each cell a group whose <title> is
 * what the page's screen reader says for it.
 */

export function sweepSvg(layout: HeatmapLayout, theme: SvgTheme, title: string): string {
  const p = PALETTES[theme];
  const cells = layout.cells.map((cell) =>
    el(
      'g',
      { 'data-outcome': cell.outcome ?? 'pending' },
      titleNode(cell.words),
      el('rect', {
        x: cell.x + 1,
        y: cell.y + 1,
        width: cell.w - 2,
        height: cell.h - 2,
        rx: 4,
        fill: p[cell.fill],
        stroke: p[cell.stroke],
        'stroke-width': 1.5,
      }),
      textNode(
        { x: cell.x + cell.w / 2, y: cell.y + cell.h / 2 + 5, 'text-anchor': 'middle', 'font-size': 13, fill: p.text },
        `${cell.symbol} ${cell.label}`,
      ),
    ),
  );
  const texts = layout.texts.map((t) =>
    textNode(
      {
        x: t.x,
        y: t.y,
        'text-anchor': t.anchor,
        'font-size': t.size,
        'font-weight': t.bold ? 'bold' : undefined,
        fill: p[t.paint],
      },
      t.text,
    ),
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${el(
    'svg',
    {
      xmlns: 'http://www.w3.org/2000/svg',
      width: layout.width,
      height: layout.height,
      viewBox: `0 0 ${layout.width} ${layout.height}`,
      role: 'img',
      'font-family': 'system-ui, sans-serif',
    },
    titleNode(title),
    el('rect', { width: layout.width, height: layout.height, fill: p.background }),
    ...texts,
    ...cells,
  )}\n`;
}
