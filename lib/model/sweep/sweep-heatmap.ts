import type { Palette } from '../timeline/timeline-svg-theme';
import { describePoint, describeRun, OUTCOME_LABEL, OUTCOME_SYMBOL, RUN_OUTCOMES, type RunOutcome } from './sweep-cell';
import type { Fencing, SweepGrid, SweepPoint } from './sweep-grid';
import { sortedGrid } from './sweep-grid';

/*
 * The sweep's heat map, laid out once for every painter (the page's SVG and the exported one):
 * for each clock drift, a panel without fencing and a fenced one side by side; in each, a column
 * per pause length and a row per lease TTL, ascending; a cell per run, coloured by its outcome and
 * marked with a symbol and a word, so that it reads without colour. Pure.
 */

export type HeatmapRun = { point: SweepPoint; fencing: Fencing; outcome?: RunOutcome; failure?: string };

export type HeatmapCell = {
  key: string;
  x: number;
  y: number;
  w: number;
  h: number;
  fill: keyof Palette;
  stroke: keyof Palette;
  /** The symbol and the word drawn in the cell. */
  symbol: string;
  label: string;
  /** The cell in words: what a screen reader says, and the SVG's <title>. */
  words: string;
  outcome?: RunOutcome;
};

export type HeatmapText = {
  x: number;
  y: number;
  text: string;
  anchor: 'start' | 'middle' | 'end';
  paint: 'text' | 'muted';
  size: number;
  bold?: boolean;
};

export type HeatmapLayout = { width: number; height: number; cells: HeatmapCell[]; texts: HeatmapText[] };

export const HEATMAP_METRICS = {
  margin: 16,
  cellW: 124,
  /** Wide enough for the longest panel title, whatever the number of pauses. */
  panelMinW: 390,
  cellH: 46,
  rowHeaderW: 92,
  panelTitleH: 26,
  axisTitleH: 20,
  colHeaderH: 22,
  panelGapX: 36,
  panelGapY: 28,
  legendH: 24,
} as const;

const PANEL_TITLE: Record<Fencing, string> = { unfenced: 'Without fencing', fenced: 'Fenced' };

const PAINT: Record<RunOutcome | 'pending', { fill: keyof Palette; stroke: keyof Palette }> = {
  'stale-accepted': { fill: 'wentBackFill', stroke: 'wentBackStroke' },
  'stale-rejected': { fill: 'rowFill', stroke: 'rowStroke' },
  'no-stale-write': { fill: 'grid', stroke: 'muted' },
  'lease-lost-first': { fill: 'leaseFill', stroke: 'leaseStroke' },
  unfinished: { fill: 'beliefFill', stroke: 'beliefStroke' },
  stopped: { fill: 'background', stroke: 'muted' },
  pending: { fill: 'background', stroke: 'separator' },
};

export const cellKey = (point: SweepPoint, fencing: Fencing): string =>
  `${point.pauseMs}/${point.ttlMs}/${point.driftPercent}/${fencing}`;

/**
 * `sweepRunning`: whether the sweep is still going, so that a cell without a result says it is under
 * way or waiting its turn, and not "not run yet" beside the run that is drawing it.
 */
export function layoutHeatmap(grid: SweepGrid, runs: readonly HeatmapRun[], sweepRunning = false): HeatmapLayout {
  const unrun = sweepRunning ? 'under way or waiting its turn' : 'not run (the sweep ended first)';
  const m = HEATMAP_METRICS;
  const { pausesMs, ttlsMs, driftsPercent } = sortedGrid(grid);
  const byKey = new Map(runs.map((run) => [cellKey(run.point, run.fencing), run]));
  const panelW = Math.max(m.panelMinW, m.rowHeaderW + pausesMs.length * m.cellW);
  const panelH = m.panelTitleH + m.axisTitleH + m.colHeaderH + ttlsMs.length * m.cellH;
  const cells: HeatmapCell[] = [];
  const texts: HeatmapText[] = [];
  const fencings: Fencing[] = ['unfenced', 'fenced'];
  driftsPercent.forEach((driftPercent, d) => {
    fencings.forEach((fencing, f) => {
      const left = m.margin + f * (panelW + m.panelGapX);
      const top = m.margin + d * (panelH + m.panelGapY);
      const drift = driftsPercent.length > 1 || driftPercent > 0 ? ` · A's clock ${driftPercent} % slow` : '';
      texts.push({
        x: left,
        y: top + 18,
        text: `${PANEL_TITLE[fencing]}${drift}`,
        anchor: 'start',
        paint: 'text',
        size: 16,
        bold: true,
      });
      const gridLeft = left + m.rowHeaderW;
      const gridTop = top + m.panelTitleH + m.axisTitleH + m.colHeaderH;
      texts.push({
        x: gridLeft + (pausesMs.length * m.cellW) / 2,
        y: top + m.panelTitleH + 14,
        text: 'pause of A (ms) →',
        anchor: 'middle',
        paint: 'muted',
        size: 12,
      });
      texts.push({
        x: left,
        y: top + m.panelTitleH + m.axisTitleH + 15,
        text: 'lease TTL ↓',
        anchor: 'start',
        paint: 'muted',
        size: 12,
      });
      pausesMs.forEach((pauseMs, c) => {
        texts.push({
          x: gridLeft + c * m.cellW + m.cellW / 2,
          y: gridTop - 6,
          text: `${pauseMs} ms`,
          anchor: 'middle',
          paint: 'text',
          size: 13,
        });
      });
      ttlsMs.forEach((ttlMs, r) => {
        texts.push({
          x: gridLeft - 8,
          y: gridTop + r * m.cellH + m.cellH / 2 + 5,
          text: `${ttlMs} ms`,
          anchor: 'end',
          paint: 'text',
          size: 13,
        });
        pausesMs.forEach((pauseMs, c) => {
          const point = { pauseMs, ttlMs, driftPercent };
          const run = byKey.get(cellKey(point, fencing));
          const outcome = run?.outcome;
          const paint = PAINT[outcome ?? 'pending'];
          cells.push({
            key: cellKey(point, fencing),
            x: gridLeft + c * m.cellW,
            y: gridTop + r * m.cellH,
            w: m.cellW,
            h: m.cellH,
            ...paint,
            symbol: outcome ? OUTCOME_SYMBOL[outcome] : '…',
            label: outcome ? OUTCOME_LABEL[outcome] : unrun,
            words: outcome
              ? describeRun({ point, fencing, outcome, ...(run?.failure ? { failure: run.failure } : {}) })
              : `${describePoint(point)}, ${fencing === 'fenced' ? 'fenced' : 'without fencing'}: ${unrun}`,
            ...(outcome ? { outcome } : {}),
          });
        });
      });
    });
  });
  const width = 2 * m.margin + 2 * panelW + m.panelGapX;
  const legendTop = m.margin + driftsPercent.length * (panelH + m.panelGapY);
  texts.push({
    x: m.margin,
    y: legendTop + 14,
    text: RUN_OUTCOMES.map((o) => `${OUTCOME_SYMBOL[o]} ${OUTCOME_LABEL[o]}`).join('  ·  '),
    anchor: 'start',
    paint: 'muted',
    size: 12,
  });
  return { width, height: legendTop + m.legendH, cells, texts };
}
