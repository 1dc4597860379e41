import { checkHistory } from '@/lib/model/checker/checker';
import { checkerReport } from '@/lib/model/checker/checker-report';
import type { WireEvent } from '@/lib/model/core/wire';
import { serializeHistory } from '@/lib/model/history/history-file';
import { replayBounds } from '@/lib/model/history/replay';
import { type ExportKind, exportEnd } from '@/lib/model/history/replay-view';
import type { LabId } from '@/lib/model/lab/lab-kinds';
import type { PollView } from '@/lib/model/poll/poll';
import type { ExportThemeChoice } from '@/lib/model/timeline/export-theme';
import { exportTheme } from '@/lib/model/timeline/export-theme';
import { buildTimeline } from '@/lib/model/timeline/timeline';
import { timelineToSvg } from '@/lib/model/timeline/timeline-svg';
import { downloadBlob, downloadText, svgToPng } from './download';

/*
 * Making an export's file and handing it to the browser: loaded by the export panel on its first
 * click (import()), so that the SVG, PNG, JSON and Markdown code is not in every lab page's first load.
 */

/** PNGs at twice the SVG's size: sharp on a projector and in slides. */
const PNG_SCALE = 2;

export type ExportRequest = {
  kind: ExportKind;
  fileName: string;
  lab: { id: string; kind: LabId; title: string };
  events: readonly WireEvent[];
  /** The questions the room was asked in this run (the history file carries them). */
  polls?: readonly PollView[];
  replayAt: number | undefined;
  /** The database's clock now (for a live export's end). */
  dbNow: number;
  exportedAt: Date;
  themeChoice: ExportThemeChoice;
  screenIsDark: boolean;
};

export async function makeExport(request: ExportRequest): Promise<void> {
  const { kind, fileName, lab, events, exportedAt } = request;
  if (kind === 'json') {
    // Up to the replay moment, as the events are: the questions asked by then.
    const at = request.replayAt;
    const polls = request.polls?.filter((poll) => at === undefined || poll.askedAt <= at);
    const text = serializeHistory({ lab, events, exportedAt, ...(polls ? { polls } : {}) });
    downloadText(text, 'application/json', fileName);
  } else if (kind === 'md') {
    const verdict = checkHistory(events);
    const report = checkerReport({ labTitle: lab.title, labId: lab.id, verdict, events, exportedAt });
    downloadText(report, 'text/markdown', fileName);
  } else {
    const end = exportEnd(replayBounds(events), request.replayAt, request.dbNow);
    const theme = exportTheme(request.themeChoice, request.screenIsDark);
    const flagged = new Set(checkHistory(events).violations.flatMap((v) => v.eventIds));
    const svg = timelineToSvg(buildTimeline(events, end), { title: `Fencing Lab · ${lab.title}`, theme, flagged });
    if (kind === 'svg') downloadText(svg, 'image/svg+xml', fileName);
    else downloadBlob(await svgToPng(svg, PNG_SCALE), fileName);
  }
}
