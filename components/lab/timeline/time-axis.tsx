import type { Scale } from './timeline';
import { AXIS_H, LABEL_W } from './timeline';

const STEPS_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000];

/** Seconds since the lab's first event, at readable intervals for the zoom level. */
export function TimeAxis({ scale, origin, height }: { scale: Scale; origin: number; height: number }) {
  const span = scale.end - scale.start;
  const step = STEPS_MS.find((s) => span / s <= 10) ?? 600_000;
  const first = origin + Math.ceil((scale.start - origin) / step) * step;
  const ticks: number[] = [];
  for (let t = first; t <= scale.end; t += step) ticks.push(t);
  return (
    // biome-ignore lint/a11y/noAriaHiddenOnFocusable: an SVG <g> is not focusable; this only hides decoration.
    <g aria-hidden="true">
      {ticks.map((t) => {
        const x = scale.x(t);
        if (x < LABEL_W) return null;
        const s = (t - origin) / 1000;
        return (
          <g key={t}>
            <line x1={x} x2={x} y1={AXIS_H - 4} y2={height} className="stroke-slate-100 dark:stroke-slate-900" />
            <text x={x} y={AXIS_H - 8} textAnchor="middle" className="fill-slate-600 text-xs dark:fill-slate-400">
              {`${s >= 0 ? '+' : ''}${Number.isInteger(s) ? s : s.toFixed(2)} s`}
            </text>
          </g>
        );
      })}
    </g>
  );
}
