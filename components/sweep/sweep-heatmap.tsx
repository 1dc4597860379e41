'use client';

import { useState } from 'react';
import type { HeatmapLayout } from '@/lib/model/sweep/sweep-heatmap';
import { PALETTES, type SvgTheme } from '@/lib/model/timeline/timeline-svg-theme';

/**
 * The heat map on screen, drawn from the same layout as the exported SVG (lib/model/sweep/sweep-heatmap.ts),
 * in the page's theme. The drawing is for the eyes; over each cell lies a button with the cell's
 * words, so that a keyboard reaches every cell (Tab) and a screen reader reads it; pressing one
 * (or clicking the cell) shows its words below, announced.
 */
export function SweepHeatmap({ layout, theme, label }: { layout: HeatmapLayout; theme: SvgTheme; label: string }) {
  const p = PALETTES[theme];
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const chosen = layout.cells.find((cell) => cell.key === selected);
  return (
    <div className="space-y-2">
      <div className="overflow-x-auto">
        <section aria-label={label} className="relative" style={{ width: layout.width, height: layout.height }}>
          <svg
            aria-hidden="true"
            width={layout.width}
            height={layout.height}
            viewBox={`0 0 ${layout.width} ${layout.height}`}
            className="absolute inset-0 font-sans"
          >
            <rect width={layout.width} height={layout.height} fill={p.background} />
            {layout.texts.map((t) => (
              <text
                key={`${t.x}/${t.y}/${t.text}`}
                x={t.x}
                y={t.y}
                textAnchor={t.anchor}
                fontSize={t.size}
                fontWeight={t.bold ? 'bold' : undefined}
                fill={p[t.paint]}
              >
                {t.text}
              </text>
            ))}
            {layout.cells.map((cell) => (
              <g key={cell.key}>
                <rect
                  x={cell.x + 1}
                  y={cell.y + 1}
                  width={cell.w - 2}
                  height={cell.h - 2}
                  rx={4}
                  fill={p[cell.fill]}
                  stroke={p[cell.stroke]}
                  strokeWidth={selected === cell.key ? 4 : 1.5}
                />
                <text
                  x={cell.x + cell.w / 2}
                  y={cell.y + cell.h / 2 + 5}
                  textAnchor="middle"
                  fontSize={13}
                  fill={p.text}
                >
                  {cell.symbol} {cell.label}
                </text>
              </g>
            ))}
          </svg>
          {layout.cells.map((cell) => (
            <button
              key={cell.key}
              type="button"
              aria-label={cell.words}
              aria-pressed={selected === cell.key}
              data-outcome={cell.outcome ?? 'pending'}
              title={cell.words}
              className="absolute rounded-md focus-visible:outline-4 focus-visible:outline-offset-0 focus-visible:outline-sky-600"
              style={{ left: cell.x, top: cell.y, width: cell.w, height: cell.h }}
              onClick={() => setSelected((key) => (key === cell.key ? undefined : cell.key))}
            />
          ))}
        </section>
      </div>
      <p aria-live="polite" className="min-h-6 text-sm">
        {chosen ? `Selected: ${chosen.words}` : 'Select a cell (or Tab to it) to read it here.'}
      </p>
    </div>
  );
}
