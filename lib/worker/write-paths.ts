import 'server-only';
import {
  writeBypassingFence,
  writeFencedUnguarded,
  writeReadCheckWrite,
  writeTokenAsText,
  writeWithoutFencing,
} from '../../db/broken-labs';
import { writeDelayedPacket } from '../../db/delayed-packet-write';
import { fencedWrite } from '../../db/fenced-write';
import type { Session } from '../../db/pool';
import type { WorkerIdentity } from '../../db/worker-identity';
import { writeThroughYourGuard } from '../../db/your-guard';
import { LABS } from '../labs/index';
import { FencingError } from '../model/core/errors';
import type { Token } from '../model/core/token';
import type { WriteResult } from '../model/core/write-result';
import type { LabInstance } from '../model/lab/lab-instance';

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

/** How each lab writes, as its traits say. The fenced lab goes through the fenced write (db/fenced-write.ts) and nothing else. */
export async function writeForLab(request: WriteRequest, session: Session): Promise<WriteResult> {
  const { value, token, actor, criticalWindow, generation, as } = request;
  const { id: lab, rowId } = request.lab;
  const kind = LABS[request.lab.kind];
  if (kind.traits.runner === 'failover-pair') {
    // Its holders are the app server's own sessions on the lab's pair (lib/supervisor/failover/).
    throw new FencingError('invalid_input', 'the failover lab has no workers');
  }
  if (kind.traits.fencing === 'trainee-guard') {
    // The trainee's own statement, run as the lab's role (0033_your_guard_lab.sql).
    await criticalWindow();
    return writeThroughYourGuard({ as, rowId, value, token }, session);
  }
  if (kind.traits.transport === 'packet-relay') {
    // Sent through the worker's packet relay, which may hold it on the wire (lib/os/packet-relay.ts); fenced or not by lab.
    await criticalWindow();
    return writeDelayedPacket({ as, rowId, value, token, attempt: 'first' }, session);
  }
  if (kind.table === 'protected_rows') {
    await criticalWindow();
    return fencedWrite({ rowId, value, token, actor, lab, generation, as }, session);
  }
  const write = { lab, rowId, value, token, actor, criticalWindow, generation, as };
  switch (kind.traits.fencing) {
    case 'none':
      return writeWithoutFencing(write, session);
    case 'app-check':
      return writeReadCheckWrite(write, session);
    case 'text-compare':
      return writeTokenAsText(write, session);
    case 'fenced-write':
      // The right statement: where such a lab breaks, its mistake is elsewhere (its tokens), or it holds.
      return writeFencedUnguarded(write, session);
    case 'catch-up-bypass': {
      // The path is chosen after the critical window: a worker that froze there wakes up overdue.
      await criticalWindow();
      const late = { ...write, criticalWindow: async () => undefined };
      return request.isOverdue() ? writeBypassingFence(late, session) : writeFencedUnguarded(late, session);
    }
  }
}
