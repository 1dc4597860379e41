'use client';

import Link from 'next/link';
import { useId, useState } from 'react';
import { Marked } from '@/components/glyph';
import { type ExportKind, exportFileName, momentOffsetLabel } from '@/lib/model/history/replay-view';
import { isPrivateLabId } from '@/lib/model/lab/lab-instance';
import { LABS } from '@/lib/model/lab/lab-kinds';
import type { ExportThemeChoice } from '@/lib/model/timeline/export-theme';
import { controlButton } from '../controls/styles';
import { useLabStore, useLabStoreApi } from '../lab-store-provider';
import { useReplayBounds, useViewEvents } from '../replay/use-replay-view';
import { ExportThemeSelect } from './export-theme-select';

type Outcome = { ok: true; fileName: string } | { ok: false; message: string };

/**
 * Downloads of what is on screen: the timeline as SVG or PNG, the history as JSON (which /replay
 * opens again), the checker's report as Markdown. Live, the whole history so far; while replaying,
 * the history up to the moment. Made in this browser: nothing is asked of the server.
 */
export function ExportPanel({ title, linkToReplay = true }: { title?: string; linkToReplay?: boolean }) {
  const store = useLabStoreApi();
  const events = useViewEvents();
  const replayAt = useLabStore((s) => s.replayAt);
  const bounds = useReplayBounds();
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const [themeChoice, setThemeChoice] = useState<ExportThemeChoice>('screen');
  const scopeId = useId();

  const run = async (kind: ExportKind) => {
    const { lab, kind: labKind, clockOffsetMs, snapshot } = store.getState();
    const labTitle =
      title ?? (isPrivateLabId(lab) ? `${LABS[labKind].title} (private lab ${lab})` : LABS[labKind].title);
    const exportedAt = new Date();
    const fileName = exportFileName(lab, kind, exportedAt);
    try {
      // The file's code is loaded on the first click (make-export.ts), not with the page.
      const { makeExport } = await import('./make-export');
      await makeExport({
        kind,
        fileName,
        lab: { id: lab, kind: labKind, title: labTitle },
        events,
        ...(snapshot?.polls ? { polls: snapshot.polls } : {}),
        replayAt,
        dbNow: Date.now() + clockOffsetMs,
        exportedAt,
        themeChoice,
        // The theme-toggle marks the dark theme with the class `dark` on <html>.
        screenIsDark: document.documentElement.classList.contains('dark'),
      });
      setOutcome({ ok: true, fileName });
    } catch (error) {
      setOutcome({ ok: false, message: error instanceof Error ? error.message : 'the export failed' });
    }
  };

  const scope =
    replayAt !== undefined && bounds
      ? `Up to the replay moment (${momentOffsetLabel(replayAt, bounds)}): ${events.length} events.`
      : `The whole history so far: ${events.length} events.`;
  const buttons: Array<[ExportKind, string]> = [
    ['svg', 'Export SVG'],
    ['png', 'Export PNG'],
    ['json', 'Export history (JSON)'],
    ['md', 'Checker report'],
  ];
  return (
    <section
      aria-labelledby="export-heading"
      className="space-y-2 rounded-lg border border-slate-200 p-4 dark:border-slate-800"
    >
      <h2 id="export-heading" className="text-lg font-semibold">
        Export
      </h2>
      <p id={scopeId} className="text-sm">
        {scope}
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <ExportThemeSelect value={themeChoice} onChange={setThemeChoice} label="Theme (SVG, PNG)" />
      </div>
      <div className="flex flex-wrap gap-2">
        {buttons.map(([kind, label]) => (
          <button
            key={kind}
            type="button"
            className={controlButton}
            aria-describedby={scopeId}
            disabled={events.length === 0}
            onClick={() => void run(kind)}
          >
            {label}
          </button>
        ))}
      </div>
      <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
        {outcome?.ok ? <Marked mark="✓">Downloaded {outcome.fileName}</Marked> : null}
      </p>
      <p role="alert" className="text-sm font-semibold text-rose-800 dark:text-rose-300">
        {outcome && !outcome.ok ? <Marked mark="✗">Could not export: {outcome.message}</Marked> : null}
      </p>
      {linkToReplay ? (
        <p className="text-sm">
          <Link href="/replay" className="font-semibold underline">
            Replay a saved history
          </Link>{' '}
          (a JSON file exported here, on any machine)
        </p>
      ) : null}
    </section>
  );
}
