'use client';

import { type DragEvent, useId, useMemo, useState } from 'react';
import { Marked } from '@/components/glyph';
import { serversOptionsOfFile } from '@/lib/model/failover/failover-servers-at';
import type { HistoryFile } from '@/lib/model/history/history-file';
import { ExportPanel } from '../export/export-panel';
import { FailoverServersAt } from '../failover/failover-servers-at';
import { LabMainColumn } from '../lab-main-column';
import { LabStoreProvider } from '../lab-store-provider';
import { historySummaryOf, readHistoryFile } from './read-history-file';
import { ReplayedPolls } from './replayed-polls';

type Loaded = { file: HistoryFile; fileName: string; serial: number };

/**
 * A history file opened in this browser and replayed with the lab's own views: no server, no live
 * feed. A file that cannot be read is refused in words, and whatever was replayed before stays.
 */
export function HistoryReplay({ initial }: { initial?: { file: HistoryFile; fileName: string } | undefined }) {
  const [loaded, setLoaded] = useState<Loaded | undefined>(initial ? { ...initial, serial: 0 } : undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [dragging, setDragging] = useState(false);
  const inputId = useId();
  // Made once per file, so that the servers' view is not rebuilt at each tick for a new options object.
  const replayed = loaded?.file;
  const servedOptions = useMemo(
    () => (replayed ? serversOptionsOfFile(replayed.lab.title, replayed.events) : undefined),
    [replayed],
  );

  const open = async (file: File | undefined) => {
    if (!file) return;
    const kept = loaded ? ' The replay below is unchanged.' : '';
    const parsed = await readHistoryFile(file);
    if (!parsed.ok) {
      setError(`${parsed.error}${kept}`);
      return;
    }
    setError(undefined);
    setLoaded((previous) => ({ file: parsed.file, fileName: file.name, serial: (previous?.serial ?? 0) + 1 }));
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void open(event.dataTransfer.files[0]);
  };

  // A counterexample (opened by its address) comes first, its timeline above the fold at 1280×720:
  // the way to open another file is below it then.
  const opener = (
    <section
      aria-labelledby="open-heading"
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      className={`space-y-2 rounded-lg border-2 border-dashed p-4 ${
        dragging ? 'border-sky-600 bg-sky-50 dark:bg-sky-950' : 'border-slate-300 dark:border-slate-700'
      }`}
    >
      <h2 id="open-heading" className="text-lg font-semibold">
        Open a history file
      </h2>
      <p>
        A JSON file from a lab&apos;s <strong>Export history (JSON)</strong>, from this server or any other. It is read
        in this browser only: nothing is uploaded.
      </p>
      <label htmlFor={inputId} className="mr-2 font-semibold">
        History file (JSON)
      </label>
      <input
        id={inputId}
        type="file"
        accept="application/json,.json"
        onChange={(event) => {
          void open(event.target.files?.[0]);
          // The same file can be chosen again (after editing it, say).
          event.target.value = '';
        }}
        className="text-base file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:font-semibold dark:file:border-slate-700 dark:file:bg-slate-900"
      />
      <span className="ml-2 text-sm text-slate-600 dark:text-slate-400">or drop it here</span>
      <p role="alert" className="font-semibold text-rose-800 dark:text-rose-300">
        {error ? <Marked mark="✗">{error}</Marked> : null}
      </p>
    </section>
  );

  return (
    <div className="space-y-4">
      {initial ? null : opener}
      {loaded ? (
        <LabStoreProvider
          key={loaded.serial}
          lab={historySummaryOf(loaded.file)}
          canDrive={false}
          history={loaded.file.events}
        >
          <p data-testid="replayed-file" className="text-base">
            Replaying <strong>{loaded.fileName}</strong>: {loaded.file.lab.title} (lab {loaded.file.lab.id}),{' '}
            {loaded.file.events.length} events, exported {loaded.file.exportedAt}.
          </p>
          <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_24rem]">
            {/* A counterexample's story first: its timeline before the replay bar, above the fold. */}
            <LabMainColumn storyFirst={initial !== undefined && loaded.serial === 0} />
            <div className="space-y-4 xl:col-start-2 xl:row-start-1">
              {/* The failover lab's pair at the replayed moment, from the file's events (nothing else). */}
              <FailoverServersAt options={servedOptions} />
              <ExportPanel title={loaded.file.lab.title} linkToReplay={false} />
              <ReplayedPolls polls={loaded.file.polls} />
            </div>
          </div>
        </LabStoreProvider>
      ) : null}
      {initial ? opener : null}
    </div>
  );
}
