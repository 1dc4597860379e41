import type { BeliefBand, LabMark, LeaseBar, LifeMark, LossMark, PauseBlock, RowChange, WriteMark } from './timeline';
import { labMarkLabel, labMarkWords } from './timeline-lab-words';
import type { MarkText } from './timeline-layout-types';
import {
  beliefLabel,
  beliefWords,
  leaseLabel,
  leaseWords,
  lifeWords,
  lossWords,
  pauseLabel,
  pauseWords,
  rowLabel,
  rowWords,
  writeLabel,
  writeWords,
} from './timeline-layout-words';

/*
 * The words and labels of a mark depend only on its item (and for the row, on the next change),
 * and an item is never changed once a timeline is handed out (lib/model/timeline/timeline-builder.ts makes
 * a new one instead): they are written once per item and kept while the item lives, so that laying
 * out a frame of a pan or a zoom writes no words and makes no garbage of them.
 */

export type Kept = {
  words: MarkText;
  /** What is written on the mark, and the shorter label for a narrow bar. */
  label: string;
  short: string;
  /** The row's next change, which its words name. */
  next?: RowChange | undefined;
};

const kept = new WeakMap<object, Kept>();

function keep<T extends object>(who: string, item: T, write: (who: string, item: T) => Kept): Kept {
  let entry = kept.get(item);
  if (!entry) {
    entry = write(who, item);
    kept.set(item, entry);
  }
  return entry;
}

const lease = (who: string, bar: LeaseBar): Kept => ({ words: leaseWords(who, bar), ...leaseLabel(bar) });
const belief = (who: string, band: BeliefBand): Kept => ({
  words: beliefWords(who, band),
  ...beliefLabel(band.token),
});
const pause = (who: string, block: PauseBlock): Kept => ({ words: pauseWords(who, block), ...pauseLabel(block) });
const write = (who: string, mark: WriteMark): Kept => ({
  words: writeWords(who, mark),
  label: writeLabel(mark),
  short: '',
});
const life = (who: string, mark: LifeMark): Kept => ({ words: lifeWords(who, mark), label: '', short: '' });
const loss = (who: string, mark: LossMark): Kept => ({ words: lossWords(who, mark), label: '', short: '' });

export const keptLease = (who: string, bar: LeaseBar) => keep(who, bar, lease);
export const keptBelief = (who: string, band: BeliefBand) => keep(who, band, belief);
export const keptPause = (who: string, block: PauseBlock) => keep(who, block, pause);
export const keptWrite = (who: string, mark: WriteMark) => keep(who, mark, write);
export const keptLife = (who: string, mark: LifeMark) => keep(who, mark, life);
export const keptLoss = (who: string, mark: LossMark) => keep(who, mark, loss);
const labStep = (_: string, mark: LabMark): Kept => ({ words: labMarkWords(mark), ...labMarkLabel(mark) });
export const keptLabMark = (mark: LabMark) => keep('lab', mark, labStep);

export function keptRowChange(change: RowChange, next: RowChange | undefined): Kept {
  let entry = kept.get(change);
  if (!entry || entry.next !== next) {
    entry = { words: rowWords(change, next), ...rowLabel(change, next), next };
    kept.set(change, entry);
  }
  return entry;
}
