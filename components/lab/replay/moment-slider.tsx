'use client';

import { type KeyboardEvent, useId } from 'react';
import type { ReplayBounds } from '@/lib/model/history/replay';
import { momentLabel } from '@/lib/model/history/replay-view';

const ARROW_STEP_MS = 100;
const SHIFT_ARROW_STEP_MS = 1_000;
const PAGE_FRACTION = 0.1;

/**
 * The time slider over the whole history, in ms since its first event. The keys are its own: the
 * browser's arrow step of 1 ms (needed to land exactly on an event) would be far too fine by hand.
 */
export function MomentSlider({
  bounds,
  moment,
  live,
  onMove,
}: {
  bounds: ReplayBounds;
  moment: number;
  live: boolean;
  onMove: (at: number) => void;
}) {
  const id = useId();
  const span = bounds.to - bounds.from;
  const label = momentLabel(moment, bounds);
  const move = (at: number) => onMove(Math.min(bounds.to, Math.max(bounds.from, at)));
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const arrow = event.shiftKey ? SHIFT_ARROW_STEP_MS : ARROW_STEP_MS;
    const steps: Record<string, number> = {
      ArrowLeft: -arrow,
      ArrowDown: -arrow,
      ArrowRight: arrow,
      ArrowUp: arrow,
      PageDown: -span * PAGE_FRACTION,
      PageUp: span * PAGE_FRACTION,
    };
    const delta = steps[event.key];
    if (event.key === 'Home') move(bounds.from);
    else if (event.key === 'End') move(bounds.to);
    else if (delta !== undefined) move(moment + delta);
    else return;
    event.preventDefault();
  };
  return (
    <div className="flex min-w-64 flex-1 items-center gap-3">
      <label htmlFor={id} className="text-sm font-semibold">
        Moment
      </label>
      <input
        id={id}
        type="range"
        min={0}
        max={span}
        step={1}
        value={moment - bounds.from}
        aria-valuetext={live ? `${label} (live)` : label}
        onChange={(event) => move(bounds.from + Number(event.target.value))}
        onKeyDown={onKeyDown}
        className="h-2 flex-1 cursor-pointer accent-violet-700 dark:accent-violet-400"
      />
      <output htmlFor={id} className="min-w-36 text-sm tabular-nums" aria-hidden="true">
        {label}
      </output>
    </div>
  );
}
