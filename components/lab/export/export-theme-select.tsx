'use client';

import { useId } from 'react';
import { type ExportThemeChoice, exportThemeChoice } from '@/lib/model/timeline/export-theme';

/** The one choice of an export's theme (as on screen, light or dark), for every export of a figure. */
export function ExportThemeSelect({
  value,
  onChange,
  label,
}: {
  value: ExportThemeChoice;
  onChange: (choice: ExportThemeChoice) => void;
  /** e.g. "Theme (SVG, PNG)": which of the exports it applies to. */
  label: string;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={id} className="text-sm font-semibold">
        {label}
      </label>
      <select
        id={id}
        value={value}
        onChange={(event) => {
          const choice = exportThemeChoice(event.target.value);
          if (choice) onChange(choice);
        }}
        className="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900"
      >
        <option value="screen">as on screen</option>
        <option value="light">light</option>
        <option value="dark">dark</option>
      </select>
    </>
  );
}
