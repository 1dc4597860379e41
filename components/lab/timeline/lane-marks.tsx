'use client';

import type { KeyboardEvent, ReactNode } from 'react';
import type { Lane, RowChange } from '@/lib/model/timeline';
import { beliefKey, leaseKey, type MarkInfo, pauseKey, rowKey, writeKey } from './marks';
import type { Scale } from './timeline';
import { LABEL_W, LANE_H, ROW_LANE_H } from './timeline';

type Props = {
  top: number;
  scale: Scale;
  marks: Map<string, MarkInfo>;
  onSelect: (key: string) => void;
  /** Ids of events the checker named in a violation. */
  flagged: Set<number>;
};

const LIFE_GLYPH = { started: '▶', restarted: '↻', crashed: '✕', stopped: '■' } as const;

/** One holder's lane: lease bars, belief bands, freezes, writes, life events. */
export function LaneMarks({ lane, top, scale, marks, onSelect, flagged }: Props & { lane: Lane }) {
  const barY = top + 8;
  const pauseY = top + 32;
  const writeY = top + 60;
  return (
    <g>
      <line x1={0} x2={scale.width} y1={top} y2={top} className="stroke-slate-200 dark:stroke-slate-800" />
      <text x={12} y={top + LANE_H / 2 + 6} className="fill-current text-lg font-bold">
        {lane.holder}
      </text>
      <g clipPath="url(#track-clip)">
        {lane.leases.map((bar) => (
          <Mark
            key={leaseKey(lane.holder, bar)}
            id={leaseKey(lane.holder, bar)}
            marks={marks}
            onSelect={onSelect}
            flag={flagged.has(bar.grantEventId) ? { x: scale.x(bar.from), y: barY } : undefined}
          >
            <Bar
              x1={scale.x(bar.from)}
              x2={scale.x(bar.to)}
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
                x1={scale.x(band.from)}
                x2={scale.x(band.to)}
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
              x1={scale.x(pause.from)}
              x2={scale.x(pause.to)}
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
          const x = scale.x(write.at);
          const accepted = write.outcome === 'accepted';
          const label = accepted ? `${write.value} · ${write.token}` : `${write.token} vs ${write.storedToken}`;
          // A label only where it does not run into the next mark; a rejection always keeps its tokens.
          const next = lane.writes[i + 1];
          const room = next ? scale.x(next.at) - x - 24 : Number.POSITIVE_INFINITY;
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
            <text x={scale.x(life.at)} y={pauseY + 13} textAnchor="middle" className="fill-current text-sm font-bold">
              {LIFE_GLYPH[life.kind]}
            </text>
          </Mark>
        ))}
        {lane.losses.map((loss) => (
          <Mark key={`loss:${loss.eventId}`} id={`loss:${loss.eventId}`} marks={marks} onSelect={onSelect}>
            <text
              x={scale.x(loss.at)}
              y={barY + 15}
              textAnchor="middle"
              className="fill-amber-800 text-base font-black dark:fill-amber-300"
            >
              !
            </text>
          </Mark>
        ))}
      </g>
    </g>
  );
}

/** The database lane: the row's value and last_token as they changed. */
export function RowLane({ changes, top, scale, marks, onSelect, flagged }: Props & { changes: RowChange[] }) {
  return (
    <g>
      <line x1={0} x2={scale.width} y1={top} y2={top} className="stroke-slate-300 dark:stroke-slate-700" />
      <text x={12} y={top + ROW_LANE_H / 2 + 5} className="fill-current text-sm font-bold">
        database
      </text>
      <g clipPath="url(#track-clip)">
        {changes.map((change, i) => {
          const next = changes[i + 1];
          const wentBack = next !== undefined && next.token < change.token;
          return (
            <Mark
              key={rowKey(change)}
              id={rowKey(change)}
              marks={marks}
              onSelect={onSelect}
              flag={flagged.has(change.eventId) ? { x: scale.x(change.at), y: top + 12 } : undefined}
            >
              <Bar
                x1={scale.x(change.at)}
                x2={next ? scale.x(next.at) : scale.end > change.at ? scale.x(scale.end) : scale.x(change.at) + 4}
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
      <line x1={LABEL_W} x2={LABEL_W} y1={0} y2={top + ROW_LANE_H} className="stroke-slate-300 dark:stroke-slate-700" />
    </g>
  );
}

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
  const room = x2 - Math.max(x1, LABEL_W) - 10;
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
        <text x={Math.max(x1, LABEL_W) + 5} y={y + h / 2 + 4.5} className="fill-current text-xs font-semibold">
          {label}
        </text>
      ) : null}
    </>
  );
}
