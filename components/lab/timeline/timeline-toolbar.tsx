'use client';

import { seconds } from '../format';
import { useLabStore } from '../lab-store-provider';

const button =
  'rounded-md border border-slate-300 px-2.5 py-1 text-sm font-medium hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-600 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-900';

/**
 * Zoom and pan, by buttons and by the keyboard shortcuts listed in the shortcuts panel. `shown` is
 * the window on screen: a walkthrough step's frame (`framed`) is let go of, keeping that window, by
 * the first zoom or pan.
 */
export function TimelineToolbar({
  now,
  shown,
}: {
  now: number;
  shown: { windowMs: number; end: number; framed: boolean };
}) {
  const following = useLabStore((s) => s.viewEnd === undefined && s.frame === undefined);
  const zoom = useLabStore((s) => s.zoom);
  const pan = useLabStore((s) => s.pan);
  const follow = useLabStore((s) => s.follow);
  const holdView = useLabStore((s) => s.holdView);
  const { windowMs } = shown;
  const unframed =
    <A extends unknown[]>(act: (...args: A) => void) =>
    (...args: A) => {
      if (shown.framed) holdView(windowMs, shown.end);
      act(...args);
    };
  return (
    <div role="toolbar" aria-label="Timeline view" className="flex flex-wrap items-center gap-1.5">
      <span className="mr-1 text-sm tabular-nums text-slate-600 dark:text-slate-400">
        showing {seconds(windowMs)}
        {shown.framed ? ' · this step' : ''}
      </span>
      <button
        type="button"
        className={button}
        onClick={unframed(() => pan(-windowMs / 4, now))}
        aria-label="Pan back in time"
      >
        ◀
      </button>
      <button
        type="button"
        className={button}
        onClick={unframed(() => pan(windowMs / 4, now))}
        aria-label="Pan forward in time"
        disabled={following}
      >
        ▶
      </button>
      <button type="button" className={button} onClick={unframed(() => zoom(0.5))} aria-label="Zoom in">
        +
      </button>
      <button type="button" className={button} onClick={unframed(() => zoom(2))} aria-label="Zoom out">
        −
      </button>
      <button type="button" className={button} onClick={follow} aria-pressed={following}>
        Follow now
      </button>
    </div>
  );
}
