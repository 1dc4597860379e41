import 'server-only';
import { resetUnguardedRow } from '../../db/broken-labs';
import { clearEvents } from '../../db/events';
import { resetProtectedRow } from '../../db/guard';
import { clearLease } from '../../db/leases';
import type { LabInstance } from '../model/lab-instance';

export const INITIAL_ROW_VALUE = 'initial';

/**
 * A lab's data back to its start: no lease, its row at the initial value, no history. The fenced
 * lab's row is reset under a freshly minted token (db/guard.ts), so tokens never go back.
 * Call only with the lab's workers stopped.
 */
export async function resetLabData(lab: LabInstance): Promise<void> {
  await clearLease(lab.resource);
  if (lab.kind === 'fenced') {
    await resetProtectedRow({ id: lab.rowId, value: INITIAL_ROW_VALUE });
  } else {
    await resetUnguardedRow(lab, INITIAL_ROW_VALUE);
  }
  await clearEvents(lab.id);
}
