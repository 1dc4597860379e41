import 'server-only';
import { resetUnguardedRow } from '../../db/broken-labs';
import { clearEvents } from '../../db/events';
import { resetProtectedRow } from '../../db/guard';
import { clearLease } from '../../db/leases';
import { LABS, type LabId } from '../model/labs';

export const INITIAL_ROW_VALUE = 'initial';

/**
 * A lab's data back to its start: no lease, its row at the initial value, no history. The fenced
 * lab's row is reset under a freshly minted token (db/guard.ts), so tokens never go back.
 * Call only with the lab's workers stopped.
 */
export async function resetLabData(lab: LabId): Promise<void> {
  const definition = LABS[lab];
  await clearLease(definition.resource);
  if (definition.table === 'protected_rows') {
    await resetProtectedRow({ id: definition.rowId, value: INITIAL_ROW_VALUE });
  } else {
    await resetUnguardedRow(lab, INITIAL_ROW_VALUE);
  }
  await clearEvents(lab);
}
