import type { HistoryFile } from '@/lib/model/history/history-file';
import { isPrivateLabId, type LabSummary } from '@/lib/model/lab/lab-instance';

export type ReadHistory = { ok: true; file: HistoryFile } | { ok: false; error: string };

/**
 * A history file chosen in this browser, read and checked here (nothing is uploaded); refused in words.
 * Its schema (zod) loads when a file is chosen, not with the page (lib/testing/browser-imports.test.ts).
 */
export async function readHistoryFile(file: File): Promise<ReadHistory> {
  let reader: typeof import('@/lib/model/history/history-file');
  try {
    reader = await import('@/lib/model/history/history-file');
  } catch {
    // Its script could not be loaded (the room's server stopped or rebuilt since the page opened).
    return {
      ok: false,
      error: `${file.name} was not opened: this page could not load its file reader; reload the page.`,
    };
  }
  const { MAX_HISTORY_FILE_CHARS, parseHistoryFile } = reader;
  // A character takes at most 4 bytes in UTF-8: a larger file cannot be a history, and is not read at all.
  if (file.size > MAX_HISTORY_FILE_CHARS * 4)
    return { ok: false, error: `${file.name} was not opened: the file is too large.` };
  let text: string;
  try {
    text = await file.text();
  } catch {
    // The browser could not read the file: said in words, the reason is the browser's.
    return { ok: false, error: `${file.name} could not be read.` };
  }
  const parsed = parseHistoryFile(text);
  return parsed.ok ? parsed : { ok: false, error: `${file.name} was not opened: ${parsed.error}.` };
}

/** The lab a file's history came from, as its views are told: closed, since nothing of it is live here. */
export const historySummaryOf = (file: HistoryFile): LabSummary => ({
  id: file.lab.id,
  kind: file.lab.kind,
  visibility: isPrivateLabId(file.lab.id) ? 'private' : 'shared',
  closed: true,
});
