import 'server-only';
import {
  writeBypassingGuard,
  writeFencedUnguarded,
  writeReadCheckWrite,
  writeTokenAsText,
  writeWithoutFencing,
} from '../../db/broken-labs';
import { writeDelayedPacket } from '../../db/delayed-packet-write';
import { fencedWrite } from '../../db/guard';
import type { Session } from '../../db/pool';
import type { WorkerIdentity } from '../../db/worker-identity';
import { writeThroughYourGuard } from '../../db/your-guard';
import { FencingError } from '../model/errors';
import type { LabInstance } from '../model/lab-instance';
import type { Token } from '../model/token';
import type { WriteResult } from '../model/write-result';

export type WriteRequest = {
  lab: LabInstance;
  value: string;
  token: Token;
  actor: string;
  /** Whether the write is later than its schedule by more than one interval, asked at write time. */
  isOverdue: () => boolean;
  criticalWindow: () => Promise<void>;
  /** The run of the lab the writer joined: a write from before the lab's last reset is refused. */
  generation: number;
  /** Who writes: the database takes the lab's row, the name and the run from it. */
  as: WorkerIdentity;
};

/** How each lab writes. The fenced lab goes through the guard and nothing else. */
export async function writeForLab(request: WriteRequest, session: Session): Promise<WriteResult> {
  const { value, token, actor, criticalWindow, generation, as } = request;
  const { id: lab, rowId } = request.lab;
  switch (request.lab.kind) {
    case 'fenced':
      await criticalWindow();
      return fencedWrite({ rowId, value, token, actor, lab, generation, as }, session);
    case 'no-fencing':
      return writeWithoutFencing({ lab, rowId, value, token, actor, criticalWindow, generation, as }, session);
    case 'read-check-write':
      return writeReadCheckWrite({ lab, rowId, value, token, actor, criticalWindow, generation, as }, session);
    case 'token-as-text':
      return writeTokenAsText({ lab, rowId, value, token, actor, criticalWindow, generation, as }, session);
    case 'per-process-counter':
      return writeFencedUnguarded({ lab, rowId, value, token, actor, criticalWindow, generation, as }, session);
    case 'same-token-takeover':
      // The right statement: this lab's mistake is in its lease service (a takeover keeps the token).
      return writeFencedUnguarded({ lab, rowId, value, token, actor, criticalWindow, generation, as }, session);
    case 'drifting-clock':
      // No token check: the write of a worker that believes its slow clock.
      return writeWithoutFencing({ lab, rowId, value, token, actor, criticalWindow, generation, as }, session);
    case 'drifting-clock-fenced':
      // The same worker, the same belief; the row's token refuses its late write.
      return writeFencedUnguarded({ lab, rowId, value, token, actor, criticalWindow, generation, as }, session);
    case 'delayed-packet':
    case 'delayed-packet-unfenced':
      // Sent through the lab's proxy, which may hold it on the wire (lib/os/packet-proxy.ts); fenced or not by lab.
      await criticalWindow();
      return writeDelayedPacket({ as, rowId, value, token, attempt: 'first' }, session);
    case 'your-guard':
      // The trainee's own statement, run as the lab's role (0033_your_guard_lab.sql).
      await criticalWindow();
      return writeThroughYourGuard({ as, rowId, value, token }, session);
    case 'failover':
      // Its holders are the app server's own sessions on the lab's pair (lib/supervisor/failover/).
      throw new FencingError('invalid_input', 'the failover lab has no workers');
    case 'bypass': {
      // The path is chosen after the critical window: a worker that froze there wakes up overdue.
      await criticalWindow();
      const write = { lab, rowId, value, token, actor, generation, as, criticalWindow: async () => undefined };
      return request.isOverdue() ? writeBypassingGuard(write, session) : writeFencedUnguarded(write, session);
    }
  }
}
