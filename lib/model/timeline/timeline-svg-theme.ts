import { el } from '../core/svg-markup';
import type { Paint } from './timeline-layout';

/*
 * The timeline's one palette, for every painter (the screen's canvas and the SVG export): Tailwind's
 * colours written out as hex, since an exported SVG has no stylesheet and must look the same in any
 * viewer, and a canvas has no classes.
 */

export type SvgTheme = 'light' | 'dark';

export type Hatch = Extract<Paint, `hatch-${string}`>;
/** A paint that is one colour: its name is the palette's entry. */
export type SolidPaint = Exclude<Paint, Hatch>;

/** A colour for every solid paint of the layout (the compiler checks that none is missing), and the hatches'. */
export type Palette = Record<SolidPaint, string> & {
  background: string;
  beliefFill: string;
  beliefHatch: string;
  pauseFill: string;
  pauseHatch: string;
};

/**
 * A hatch, for every painter: a tile of `size` px filled with `fill`, crossed by lines of `lineW` px
 * in `line` (palette entries): a belief's stripes (a vertical line, the tile turned 45°), a freeze's
 * cross (both diagonals of the tile).
 */
export type HatchSpec = {
  fill: keyof Palette;
  line: keyof Palette;
  size: number;
  lineW: number;
  pattern: 'stripes-45' | 'cross';
};

export const HATCHES: Record<Hatch, HatchSpec> = {
  'hatch-belief': { fill: 'beliefFill', line: 'beliefHatch', size: 8, lineW: 3, pattern: 'stripes-45' },
  'hatch-pause': { fill: 'pauseFill', line: 'pauseHatch', size: 6, lineW: 1, pattern: 'cross' },
};

export const isHatch = (paint: Paint): paint is Hatch => paint.startsWith('hatch-');

export const PALETTES: Record<SvgTheme, Palette> = {
  light: {
    background: '#ffffff', // white
    text: '#0f172a', // slate-900
    muted: '#475569', // slate-600
    grid: '#f1f5f9', // slate-100
    separator: '#e2e8f0', // slate-200
    leaseFill: '#bae6fd', // sky-200
    leaseStroke: '#0369a1', // sky-700
    beliefFill: '#fef3c7', // amber-100
    beliefHatch: '#d97706', // amber-600
    beliefStroke: '#b45309', // amber-700
    pauseFill: '#e2e8f0', // slate-200
    pauseHatch: '#64748b', // slate-500
    pauseStroke: '#475569', // slate-600
    accepted: '#059669', // emerald-600
    rejected: '#e11d48', // rose-600
    onMark: '#ffffff',
    rowFill: '#ecfdf5', // emerald-50
    rowStroke: '#047857', // emerald-700
    wentBackFill: '#ffe4e6', // rose-100
    wentBackStroke: '#be123c', // rose-700
    loss: '#92400e', // amber-800
    flag: '#be123c', // rose-700
  },
  dark: {
    background: '#020617', // slate-950
    text: '#f1f5f9', // slate-100
    muted: '#94a3b8', // slate-400
    grid: '#0f172a', // slate-900
    separator: '#1e293b', // slate-800
    leaseFill: '#0c4a6e', // sky-900
    leaseStroke: '#7dd3fc', // sky-300
    beliefFill: '#451a03', // amber-950
    beliefHatch: '#fbbf24', // amber-400
    beliefStroke: '#fcd34d', // amber-300
    // Dark enough under the freeze's light label ("frozen before its write"): slate-300 lines made it white on white.
    pauseFill: '#1e293b', // slate-800
    pauseHatch: '#64748b', // slate-500
    pauseStroke: '#cbd5e1', // slate-300
    accepted: '#10b981', // emerald-500
    rejected: '#f43f5e', // rose-500
    onMark: '#ffffff',
    rowFill: '#022c22', // emerald-950
    rowStroke: '#6ee7b7', // emerald-300
    wentBackFill: '#4c0519', // rose-950
    wentBackStroke: '#fda4af', // rose-300
    loss: '#fcd34d', // amber-300
    flag: '#fda4af', // rose-300
  },
};

/** The hatches, so that a belief and a freeze read without colour (and in black-and-white print), as SVG patterns. */
export function hatchPatterns(p: Palette): string {
  const patterns = (Object.entries(HATCHES) as Array<[Hatch, HatchSpec]>).map(([id, h]) =>
    el(
      'pattern',
      {
        id,
        width: h.size,
        height: h.size,
        patternUnits: 'userSpaceOnUse',
        patternTransform: h.pattern === 'stripes-45' ? 'rotate(45)' : undefined,
      },
      el('rect', { width: h.size, height: h.size, fill: p[h.fill] }),
      h.pattern === 'stripes-45'
        ? el('line', { x1: 0, y1: 0, x2: 0, y2: h.size, stroke: p[h.line], 'stroke-width': h.lineW })
        : el('path', {
            d: `M0 0 L${h.size} ${h.size} M${h.size} 0 L0 ${h.size}`,
            stroke: p[h.line],
            'stroke-width': h.lineW,
          }),
    ),
  );
  return el('defs', {}, ...patterns);
}
