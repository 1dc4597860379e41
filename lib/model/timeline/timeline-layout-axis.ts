import { clockTick } from '../core/clock-time';
import { textWidth } from './timeline-layout-marks';
import type { LayoutOptions, Shape } from './timeline-layout-types';

/*
 * The timeline's axis: its ticks and their labels, in the database's clock time as the narration and
 * the marks say a moment (core/clock-time.ts): a time a sentence names is read off the axis as it is.
 */

const AXIS_STEPS_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000];
const LONGEST_AXIS_STEP_MS = 600_000;

/** The least room between two axis labels, in px. */
const AXIS_LABEL_GAP = 12;

/**
 * "10:28:38": the clock at each multiple of a step (whole seconds, minutes: round clock times), at a
 * step that gives at most ten ticks in the window and room for each label (the widest, with its gap):
 * a phone's narrow track gets fewer. A step under a second says its milliseconds (10:28:38.250).
 */
export function axisDecor(
  o: Pick<LayoutOptions, 'from' | 'to' | 'metrics'>,
  x: (t: number) => number,
  height: number,
): Shape[] {
  const { from, to, metrics: m } = o;
  const pxPerMs = (x(to) - x(from)) / (to - from);
  // The widest label a step draws: a sub-second step's carries its milliseconds.
  const widest = (step: number) => textWidth(clockTick(Math.floor(to / 1000) * 1000 + (step % 1000)), m.labelPx);
  const fits = (step: number) => (to - from) / step <= 10 && step * pxPerMs >= widest(step) + AXIS_LABEL_GAP;
  // Ticks at round clock times: a step none of whose multiples falls in the window draws nothing.
  const lands = (s: number) => Math.ceil(from / s) * s <= to;
  const fitting = AXIS_STEPS_MS.find((s) => fits(s) && lands(s));
  // A track too narrow for two labels gets one: the roundest clock time in the window.
  const step = fitting ?? AXIS_STEPS_MS.findLast(lands) ?? LONGEST_AXIS_STEP_MS;
  const shapes: Shape[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to && (fitting !== undefined || shapes.length === 0); t += step) {
    const at = x(t);
    shapes.push(
      { type: 'line', x1: at, x2: at, y1: m.axisH - 4, y2: height, stroke: 'grid' },
      {
        type: 'text',
        x: at,
        y: m.axisH - 8,
        text: clockTick(t),
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
