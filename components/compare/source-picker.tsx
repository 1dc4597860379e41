'use client';

import { useId, useState } from 'react';
import { Marked } from '@/components/glyph';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { readHistoryFile } from '../lab/replay/read-history-file';
import { type CompareSource, labChoiceName } from './compare-source';

const field =
  'rounded-md border border-slate-300 bg-white px-2 py-1.5 text-base dark:border-slate-700 dark:bg-slate-900';

/** One side's choice: a lab this browser may see (followed live) or an exported history file. */
export function SourcePicker({
  legend,
  labs,
  source,
  onChoose,
}: {
  legend: string;
  labs: readonly LabSummary[];
  source: CompareSource | undefined;
  onChoose: (source: CompareSource) => void;
}) {
  const [error, setError] = useState<string | undefined>(undefined);
  const labId = useId();
  const fileId = useId();
  const serial = (source?.serial ?? 0) + 1;
  const openFile = async (file: File | undefined) => {
    if (!file) return;
    const read = await readHistoryFile(file);
    if (!read.ok) {
      setError(read.error);
      return;
    }
    setError(undefined);
    onChoose({ type: 'file', file: read.file, fileName: file.name, serial });
  };
  return (
    <fieldset className="min-w-0 flex-1 space-y-2 rounded-lg border border-slate-300 p-3 dark:border-slate-700">
      <legend className="px-1 text-lg font-semibold">{legend}</legend>
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={labId} className="font-semibold">
          Lab (live)
        </label>
        <select
          id={labId}
          className={field}
          value={source?.type === 'lab' ? source.lab.id : ''}
          onChange={(event) => {
            const lab = labs.find((l) => l.id === event.target.value);
            if (lab) onChoose({ type: 'lab', lab, serial });
          }}
        >
          <option value="" disabled>
            {source?.type === 'file' ? 'a file is chosen' : 'choose a lab'}
          </option>
          {labs.map((lab) => (
            <option key={lab.id} value={lab.id}>
              {labChoiceName(lab)}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={fileId} className="font-semibold">
          or a history file (JSON)
        </label>
        <input
          id={fileId}
          type="file"
          accept="application/json,.json"
          onChange={(event) => {
            void openFile(event.target.files?.[0]);
            event.target.value = '';
          }}
          className="text-base file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:font-semibold dark:file:border-slate-700 dark:file:bg-slate-900"
        />
      </div>
      {source?.type === 'file' ? (
        <p className="text-sm">
          Showing <strong>{source.fileName}</strong> ({source.file.events.length} events), read in this browser only.
        </p>
      ) : null}
      <p role="alert" className="font-semibold text-rose-800 dark:text-rose-300">
        {error ? <Marked mark="✗">{error}</Marked> : null}
      </p>
    </fieldset>
  );
}
