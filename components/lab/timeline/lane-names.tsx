import type { TimelineMetrics } from '@/lib/model/timeline/timeline-layout';

/**
 * Lane names, as text beside the canvas: they do not move when the view pans or zooms, and a
 * projector's back row reads them at the metrics' size.
 */
export function LaneNames({
  holders,
  metrics,
  rowTop,
  height,
}: {
  holders: string[];
  metrics: TimelineMetrics;
  rowTop: number;
  height: number;
}) {
  const { axisH, laneH, labelW, lanePx, rowLaneH } = metrics;
  return (
    <div
      aria-hidden="true"
      data-testid="lane-names"
      className="absolute top-0 left-0 border-r border-slate-300 font-bold dark:border-slate-700"
      style={{ width: labelW, height }}
    >
      {holders.map((holder, i) => (
        <div
          key={holder}
          data-lane-name={holder}
          className="absolute left-0 flex w-full items-center truncate border-t border-slate-200 px-3 dark:border-slate-800"
          style={{ top: axisH + i * laneH, height: laneH, fontSize: lanePx, lineHeight: 1.1 }}
        >
          {holder}
        </div>
      ))}
      <div
        data-lane-name="database"
        className="absolute left-0 flex w-full items-center border-t border-slate-300 px-3 dark:border-slate-700"
        style={{ top: rowTop, height: rowLaneH, fontSize: lanePx, lineHeight: 1.1 }}
      >
        database
      </div>
    </div>
  );
}
