import { type HistoryFile, MAX_HISTORY_FILE_CHARS, parseHistoryFile } from '@/lib/model/history/history-file';
import { isPrivateLabId, type LabSummary } from '@/lib/model/lab/lab-instance';

/** A character takes at most 4 bytes in UTF-8: a larger file cannot be a history, and is not read at all. */
const MAX_FILE_BYTES = MAX_HISTORY_FILE_CHARS * 4;

export type ReadHistory = { ok: true; file: HistoryFile } | { ok: false; error: string };

/** A history file chosen in this browser, read and checked here (nothing is uploaded); refused in words. */
export async function readHistoryFile(file: File): Promise<ReadHistory> {
  if (file.size > MAX_FILE_BYTES) return { ok: false, error: `${file.name} was not opened: the file is too large.` };
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
