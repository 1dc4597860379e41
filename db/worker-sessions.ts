import 'server-only';
import { getPool, type Queryable } from './pool';

/** The worker role's time budget per session (db/functions/fl_end_overdue_worker_sessions.sql). */
export type WorkerSessionBudget = { statementMs: number; idleInTransactionMs: number };

/** Ends every worker-role session over its budget, whatever it SET for itself; returns how many. */
export async function endOverdueWorkerSessions(
  budget: WorkerSessionBudget,
  db: Queryable = getPool(),
): Promise<number> {
  const { rows } = await db.query<{ ended: number }>('SELECT fl_end_overdue_worker_sessions($1, $2) AS ended', [
    budget.statementMs,
    budget.idleInTransactionMs,
  ]);
  return rows[0]?.ended ?? 0;
}
