'use client';

import { type KeyboardEvent, memo, type ReactNode, useMemo } from 'react';
import type { Lane, RowChange } from '@/lib/model/timeline';
import { beliefKey, describeLane, describeRow, leaseKey, type MarkInfo, pauseKey, rowKey, writeKey } from './marks';

type Props = {
  top: number;
  /** Position on the (translated) track for a database time. */
  x: (t: number) => number;
  onSelect: (key: string) => void;
  /** Ids of events the checker named in a violation. */
  flagged: Set<number>;
};

const LIFE_GLYPH = { started: '▶', restarted: '↻', crashed: '✕', stopped: '■' } as const;

/** One holder's marks on the track (its name and separator are drawn by the timeline). Memoized:
 * sliding the view only moves the track, it does not redraw it. */
export const LaneMarks = memo(function LaneMarks({ lane, top, x: at, onSelect, flagged }: Props & { lane: Lane }) {
  const marks = useMemo(() => describeLane(lane), [lane]);
  const barY = top + 8;
  const pauseY = top + 32;
  const writeY = top + 60;
  return (
    <g>
      {lane.leases.map((bar) => (
        <Mark
          key={leaseKey(lane.holder, bar)}
          id={leaseKey(lane.holder, bar)}
          marks={marks}
          onSelect={onSelect}
          flag={flagged.has(bar.grantEventId) ? { x: at(bar.from), y: barY } : undefined}
        >
          <Bar
            x1={at(bar.from)}
            x2={at(bar.to)}
            y={barY}
            h={20}
            className="fill-sky-200 stroke-sky-700 dark:fill-sky-900 dark:stroke-sky-300"
            short={String(bar.token)}
          >
            {`token ${bar.token}`}
          </Bar>
        </Mark>
      ))}
      {lane.beliefs.map((band) => {
        const key = beliefKey(lane.holder, band.token, band.from);
        return (
          <Mark key={key} id={key} marks={marks} onSelect={onSelect}>
            <Bar
              x1={at(band.from)}
              x2={at(band.to)}
              y={barY}
              h={20}
              fill="url(#hatch-belief)"
              className="stroke-amber-700 dark:stroke-amber-300"
              dashed
              short={`≠ ${band.token}`}
            >
              {`believes it holds token ${band.token}`}
            </Bar>
          </Mark>
        );
      })}
      {lane.pauses.map((pause) => (
        <Mark key={pauseKey(pause)} id={pauseKey(pause)} marks={marks} onSelect={onSelect}>
          <Bar
            x1={at(pause.from)}
            x2={at(pause.to)}
            y={pauseY}
            h={16}
            fill="url(#hatch-pause)"
            className="stroke-slate-600 dark:stroke-slate-300"
            short="⏸"
          >
            {pause.trigger === 'critical-window' ? '⏸ frozen before its write' : '⏸ frozen'}
          </Bar>
        </Mark>
      ))}
      {lane.writes.map((write, i) => {
        const x = at(write.at);
        const accepted = write.outcome === 'accepted';
        const label = accepted ? `${write.value} · ${write.token}` : `${write.token} vs ${write.storedToken}`;
        // A label only where it does not run into the next mark; a rejection always keeps its tokens.
        const next = lane.writes[i + 1];
        const room = next ? at(next.at) - x - 24 : Number.POSITIVE_INFINITY;
        const shown = !accepted || label.length * CHAR_W <= room;
        return (
          <Mark
            key={writeKey(write)}
            id={writeKey(write)}
            marks={marks}
            onSelect={onSelect}
            flag={flagged.has(write.eventId) ? { x, y: writeY - 10 } : undefined}
          >
            <circle
              cx={x}
              cy={writeY}
              r={9}
              className={accepted ? 'fill-emerald-600 dark:fill-emerald-500' : 'fill-rose-600 dark:fill-rose-500'}
            />
            <text x={x} y={writeY + 4.5} textAnchor="middle" className="fill-white text-[13px] font-bold">
              {accepted ? '✓' : '✗'}
            </text>
            {shown ? (
              <text x={x + 12} y={writeY + 5} className="fill-current text-xs">
                {label}
              </text>
            ) : null}
          </Mark>
        );
      })}
      {lane.life.map((life) => (
        <Mark key={`life:${life.eventId}`} id={`life:${life.eventId}`} marks={marks} onSelect={onSelect}>
          <text x={at(life.at)} y={pauseY + 13} textAnchor="middle" className="fill-current text-sm font-bold">
            {LIFE_GLYPH[life.kind]}
          </text>
        </Mark>
      ))}
      {lane.losses.map((loss) => (
        <Mark key={`loss:${loss.eventId}`} id={`loss:${loss.eventId}`} marks={marks} onSelect={onSelect}>
          <text
            x={at(loss.at)}
            y={barY + 15}
            textAnchor="middle"
            className="fill-amber-800 text-base font-black dark:fill-amber-300"
          >
            !
          </text>
        </Mark>
      ))}
    </g>
  );
});

/** The database lane's marks: the row's value and last_token as they changed, the last one until `until`. */
export const RowLane = memo(function RowLane({
  changes,
  top,
  x: at,
  until,
  onSelect,
  flagged,
}: Props & { changes: RowChange[]; until: number }) {
  const marks = useMemo(() => describeRow(changes), [changes]);
  return (
    <g>
      {changes.map((change, i) => {
        const next = changes[i + 1];
        const wentBack = next !== undefined && next.token < change.token;
        return (
          <Mark
            key={rowKey(change)}
            id={rowKey(change)}
            marks={marks}
            onSelect={onSelect}
            flag={flagged.has(change.eventId) ? { x: at(change.at), y: top + 12 } : undefined}
          >
            <Bar
              x1={at(change.at)}
              x2={next ? at(next.at) : Math.max(at(until), at(change.at) + 4)}
              y={top + 12}
              h={28}
              className={
                wentBack
                  ? 'fill-rose-100 stroke-rose-700 dark:fill-rose-950 dark:stroke-rose-300'
                  : 'fill-emerald-50 stroke-emerald-700 dark:fill-emerald-950 dark:stroke-emerald-300'
              }
            >
              {`${change.value} · token ${change.token}${wentBack ? ' (overwritten by an older token)' : ''}`}
            </Bar>
          </Mark>
        );
      })}
    </g>
  );
});

function Mark({
  id,
  marks,
  onSelect,
  flag,
  children,
}: {
  id: string;
  marks: Map<string, MarkInfo>;
  onSelect: (key: string) => void;
  /** Where to put the ⚠ of a mark the checker named in a violation. */
  flag?: { x: number; y: number } | undefined;
  children: ReactNode;
}) {
  const info = marks.get(id);
  const label = `${flag ? 'Violation: ' : ''}${info ? `${info.title}. ${info.lines.join('. ')}` : id}`;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onSelect(id);
    }
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: an SVG mark cannot be a <button>; it has the role, focus and keys of one.
    <g
      role="button"
      tabIndex={0}
      aria-label={label}
      data-mark={id}
      data-flagged={flag ? 'true' : undefined}
      onClick={() => onSelect(id)}
      onFocus={() => onSelect(id)}
      onMouseEnter={() => onSelect(id)}
      onKeyDown={onKeyDown}
      className="cursor-pointer outline-none focus-visible:[&>*:first-child]:stroke-[3px] focus-visible:[&>*:first-child]:stroke-fuchsia-600"
    >
      {children}
      {flag ? (
        <text
          x={flag.x}
          y={flag.y - 2}
          textAnchor="middle"
          className="fill-rose-700 text-base font-black dark:fill-rose-300"
        >
          ⚠
        </text>
      ) : null}
    </g>
  );
}

const CHAR_W = 6.6;

type BarProps = {
  x1: number;
  x2: number;
  y: number;
  h: number;
  className: string;
  fill?: string;
  dashed?: boolean;
  /** A shorter label for a narrow bar. */
  short?: string;
  children: string;
};

/** A bar with its label inside, shortened (or left out) when the bar is too narrow to hold it. */
function Bar({ x1, x2, y, h, className, fill, dashed, short, children }: BarProps) {
  const width = Math.max(3, x2 - x1);
  const room = x2 - x1 - 10;
  const label =
    children.length * CHAR_W <= room ? children : short && short.length * CHAR_W <= room ? short : undefined;
  return (
    <>
      <rect
        x={x1}
        y={y}
        width={width}
        height={h}
        rx={3}
        className={className}
        fill={fill}
        strokeWidth={1.5}
        strokeDasharray={dashed ? '5 3' : undefined}
      />
      {label ? (
        <text x={x1 + 5} y={y + h / 2 + 4.5} className="fill-current text-xs font-semibold">
          {label}
        </text>
      ) : null}
    </>
  );
}
