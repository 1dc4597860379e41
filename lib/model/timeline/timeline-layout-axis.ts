import { textWidth } from './timeline-layout-marks';
import type { LayoutOptions, Shape } from './timeline-layout-types';

/* The timeline's axis: its ticks and their labels, in seconds since the lab's first event. */

const AXIS_STEPS_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000];
const LONGEST_AXIS_STEP_MS = 600_000;

const axisLabel = (ms: number) => {
  const s = ms / 1000;
  return `${s >= 0 ? '+' : ''}${Number.isInteger(s) ? s : s.toFixed(2)} s`;
};
/** The least room between two axis labels, in px. */
const AXIS_LABEL_GAP = 12;

/**
 * "+12 s": seconds since the origin, at a step that gives at most ten ticks in the window and room
 * for each label (the widest, the window's end, with its gap): a phone's narrow track gets fewer.
 */
export function axisDecor(
  o: Pick<LayoutOptions, 'from' | 'to' | 'origin' | 'metrics'>,
  x: (t: number) => number,
  height: number,
): Shape[] {
  const { from, to, origin, metrics: m } = o;
  const pxPerMs = (x(to) - x(from)) / (to - from);
  const widest = (step: number) =>
    Math.max(textWidth(axisLabel(to - origin), m.labelPx), textWidth(axisLabel(from - origin), m.labelPx)) +
    (step % 1000 === 0 ? 0 : textWidth('.00', m.labelPx));
  const fits = (step: number) => (to - from) / step <= 10 && step * pxPerMs >= widest(step) + AXIS_LABEL_GAP;
  const step = AXIS_STEPS_MS.find(fits) ?? LONGEST_AXIS_STEP_MS;
  const shapes: Shape[] = [];
  for (let t = origin + Math.ceil((from - origin) / step) * step; t <= to; t += step) {
    const at = x(t);
    shapes.push(
      { type: 'line', x1: at, x2: at, y1: m.axisH - 4, y2: height, stroke: 'grid' },
      {
        type: 'text',
        x: at,
        y: m.axisH - 8,
        text: axisLabel(t - origin),
        px: m.labelPx,
        weight: 400,
        anchor: 'middle',
        fill: 'muted',
        role: 'axis',
      },
    );
  }
  return shapes;
}
