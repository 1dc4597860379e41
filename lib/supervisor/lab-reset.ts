import 'server-only';
import { resetUnguardedRow } from '../../db/broken-labs';
import { clearEvents } from '../../db/events';
import { resetProtectedRow } from '../../db/fenced-write';
import { bumpLabGeneration, endSessionsHoldingLab, limitResetLockWait } from '../../db/lab-generation';
import { clearLease } from '../../db/leases';
import { withTransaction } from '../../db/pool';
import { writesProtectedRows } from '../labs/traits';
import type { LabInstance } from '../model/lab/lab-instance';

export const INITIAL_ROW_VALUE = 'initial';
const LOCK_TIMEOUT = '55P03';
const RESET_ATTEMPTS = 3;

/**
 * A lab's data back to its start, in ONE transaction: the lab's next generation (every worker that
 * joined before it is refused by the database from then on, reachable or not: db/lab-generation.ts),
 * no lease, its row at the initial value (or `rowValue`: a what-if fork's row at its moment), no history. It all commits together or not at all: a reset
 * that fails half-way leaves the lab as it was. The fenced lab's row is reset under a freshly minted
 * token (db/fenced-write.ts), so tokens never go back. The generation comes first: it waits for the worker
 * statements in flight and holds off new ones, so nothing of the old run lands after the reset.
 * Its own workers are stopped first (the supervisor does), so that they stop cleanly. A worker
 * transaction that does not finish (its process frozen by the operating system in the middle of it)
 * would hold the reset forever: after RESET_LOCK_WAIT_MS its session is ended, and the reset tries
 * again.
 */
export async function resetLabData(lab: LabInstance, rowValue = INITIAL_ROW_VALUE): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await resetOnce(lab, rowValue);
    } catch (error) {
      if ((error as { code?: unknown }).code !== LOCK_TIMEOUT || attempt >= RESET_ATTEMPTS) throw error;
      await endSessionsHoldingLab(lab.id);
    }
  }
}

async function resetOnce(lab: LabInstance, rowValue: string): Promise<void> {
  await withTransaction(async (client) => {
    await limitResetLockWait(client);
    await bumpLabGeneration(lab.id, client);
    await clearLease(lab.resource, client);
    if (writesProtectedRows(lab.kind)) {
      await resetProtectedRow({ id: lab.rowId, value: rowValue }, client);
    } else {
      await resetUnguardedRow(lab, rowValue, client);
    }
    await clearEvents(lab.id, client);
  });
}
