import { memo } from 'react';
import { AXIS_H } from './geometry';

const STEPS_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000];

/** Seconds since the lab's first event, at readable intervals for the zoom level, over [from, to]. */
export const TimeAxis = memo(function TimeAxis({
  from,
  to,
  windowMs,
  origin,
  x,
  height,
}: {
  from: number;
  to: number;
  windowMs: number;
  origin: number;
  x: (t: number) => number;
  height: number;
}) {
  const step = STEPS_MS.find((s) => windowMs / s <= 10) ?? 600_000;
  const first = origin + Math.ceil((from - origin) / step) * step;
  const ticks: number[] = [];
  for (let t = first; t <= to; t += step) ticks.push(t);
  return (
    // biome-ignore lint/a11y/noAriaHiddenOnFocusable: an SVG <g> is not focusable; this only hides decoration.
    <g aria-hidden="true">
      {ticks.map((t) => {
        const s = (t - origin) / 1000;
        return (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={AXIS_H - 4} y2={height} className="stroke-slate-100 dark:stroke-slate-900" />
            <text x={x(t)} y={AXIS_H - 8} textAnchor="middle" className="fill-slate-600 text-xs dark:fill-slate-400">
              {`${s >= 0 ? '+' : ''}${Number.isInteger(s) ? s : s.toFixed(2)} s`}
            </text>
          </g>
        );
      })}
    </g>
  );
});
