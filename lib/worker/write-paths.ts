import 'server-only';
import {
  writeBypassingGuard,
  writeFencedUnguarded,
  writeReadCheckWrite,
  writeTokenAsText,
  writeWithoutFencing,
} from '../../db/broken-labs';
import { fencedWrite } from '../../db/guard';
import type { Session } from '../../db/pool';
import { LABS, type LabId } from '../model/labs';
import type { Token } from '../model/token';
import type { WriteResult } from '../model/write-result';

export type WriteRequest = {
  lab: LabId;
  value: string;
  token: Token;
  actor: string;
  /** Whether the write is later than its schedule by more than one interval, asked at write time. */
  isOverdue: () => boolean;
  criticalWindow: () => Promise<void>;
};

/** How each lab writes. The fenced lab goes through the guard and nothing else. */
export async function writeForLab(request: WriteRequest, session: Session): Promise<WriteResult> {
  const { lab, value, token, actor, criticalWindow } = request;
  switch (lab) {
    case 'fenced':
      await criticalWindow();
      return fencedWrite({ rowId: LABS.fenced.rowId, value, token, actor, lab }, session);
    case 'no-fencing':
      return writeWithoutFencing({ lab, value, token, actor, criticalWindow }, session);
    case 'read-check-write':
      return writeReadCheckWrite({ lab, value, token, actor, criticalWindow }, session);
    case 'token-as-text':
      return writeTokenAsText({ lab, value, token, actor, criticalWindow }, session);
    case 'per-process-counter':
      return writeFencedUnguarded({ lab, value, token, actor, criticalWindow }, session);
    case 'bypass': {
      // The path is chosen after the critical window: a worker that froze there wakes up overdue.
      await criticalWindow();
      const write = { lab, value, token, actor, criticalWindow: async () => undefined };
      return request.isOverdue() ? writeBypassingGuard(write, session) : writeFencedUnguarded(write, session);
    }
  }
}
