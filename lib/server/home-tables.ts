import 'server-only';
import { listSharedProtectedRows } from '../../db/fenced-write';
import { listSharedLeases } from '../../db/leases';
import type { LeaseView, RowView } from '../model/core/table-views';

/**
 * The home page's tables: the shared labs' protected rows and their leases. Private labs are nobody
 * else's business: their rows and leases stay off that page.
 */
export async function sharedLabTables(): Promise<{ rows: RowView[]; leases: LeaseView[] }> {
  const [rows, leases] = await Promise.all([listSharedProtectedRows(), listSharedLeases()]);
  return { rows, leases };
}
