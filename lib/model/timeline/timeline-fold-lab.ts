import type { WireEvent } from '../core/wire';
import type { FoldedLog } from './timeline-fold-log';
import type { LabMark, RowChange } from './timeline-types';

/*
 * The row's changes and the lab's own steps, folded into the timeline being built (timeline-fold.ts
 * folds a holder's events): copied before a write when a handed-out timeline holds the list.
 */

export function pushRow(log: FoldedLog, change: RowChange): void {
  if (log.rowShared) {
    log.row = log.row.slice();
    log.rowShared = false;
  }
  log.row.push(change);
}

/**
 * A step of the whole lab: a mark across the lanes, not a lane of its own. A promotion also says
 * what the row holds on the new primary: the database lane shows it (a row gone back is a loss).
 */
export function foldLabWide(log: FoldedLog, event: WireEvent & { kind: LabMark['kind'] }): void {
  if (log.labMarksShared) {
    log.labMarks = log.labMarks.slice();
    log.labMarksShared = false;
  }
  log.labMarks.push({ at: event.at, eventId: event.id, kind: event.kind, actor: event.actor, detail: event.detail });
  const row = event.detail.row as { value?: unknown; lastToken?: unknown } | undefined;
  if (event.kind === 'standby_promoted' && row && typeof row.lastToken === 'number') {
    pushRow(log, {
      at: event.at,
      eventId: event.id,
      value: String(row.value ?? ''),
      token: row.lastToken,
      by: 'the promoted standby',
      restored: true,
    });
  }
}
