'use client';

import { useState } from 'react';
import { Marked } from '@/components/glyph';
import { exportFileName } from '@/lib/model/history/replay-view';
import type { HeatmapLayout } from '@/lib/model/sweep/sweep-heatmap';
import { sweepSvg } from '@/lib/model/sweep/sweep-svg';
import { type ExportThemeChoice, exportTheme } from '@/lib/model/timeline/export-theme';
import { controlButton } from '../lab/controls/styles';
import { downloadText } from '../lab/export/download';
import { ExportThemeSelect } from '../lab/export/export-theme-select';

/** The heat map as an SVG file, in the theme on screen or either, made in this browser. */
export function SweepExport({
  layout,
  title,
  screenIsDark,
}: {
  layout: HeatmapLayout;
  title: string;
  screenIsDark: boolean;
}) {
  const [themeChoice, setThemeChoice] = useState<ExportThemeChoice>('screen');
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const exportSvg = () => {
    const fileName = exportFileName('sweep', 'svg', new Date());
    downloadText(sweepSvg(layout, exportTheme(themeChoice, screenIsDark), title), 'image/svg+xml', fileName);
    setSaved(fileName);
  };
  return (
    <section aria-labelledby="sweep-export-heading" className="space-y-2">
      <h2 id="sweep-export-heading" className="text-lg font-semibold">
        Export
      </h2>
      <div className="flex flex-wrap items-center gap-2">
        <ExportThemeSelect value={themeChoice} onChange={setThemeChoice} label="Theme (SVG)" />
        <button type="button" className={controlButton} onClick={exportSvg}>
          Export heat map (SVG)
        </button>
      </div>
      <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
        {saved ? <Marked mark="✓">Downloaded {saved}</Marked> : null}
      </p>
    </section>
  );
}
