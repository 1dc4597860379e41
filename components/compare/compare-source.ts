import type { HistoryFile } from '@/lib/model/history/history-file';
import type { LabSummary } from '@/lib/model/lab/lab-instance';
import { LABS, type LabId } from '@/lib/model/lab/lab-kinds';
import { createLabStore, type LabStoreApi } from '../lab/lab-store';
import { historySummaryOf } from '../lab/replay/read-history-file';

/** One side of a comparison: a lab this browser may see, followed live, or a history file read here. */
export type CompareSource =
  | { type: 'lab'; lab: LabSummary; serial: number }
  | { type: 'file'; file: HistoryFile; fileName: string; serial: number };

/** How a lab is named in the picker and in the comparison's words. */
export function labChoiceName(lab: LabSummary): string {
  const title = LABS[lab.kind].title;
  return lab.visibility === 'private' ? `${title} (your private lab ${lab.id})` : title;
}

export function sourceName(source: CompareSource): string {
  return source.type === 'lab' ? labChoiceName(source.lab) : source.fileName;
}

export function sourceKind(source: CompareSource): LabId {
  return source.type === 'lab' ? source.lab.kind : historySummaryOf(source.file).kind;
}

/** The side's own lab store: fed by the lab's live feed, or holding the file's history (no feed). */
export function storeOf(source: CompareSource): LabStoreApi {
  return source.type === 'lab'
    ? createLabStore(source.lab, false)
    : createLabStore(historySummaryOf(source.file), false, source.file.events);
}
