import type { FailoverStep } from '../lib/model/failover-checker';
import { getPool, type Queryable } from './pool';

/*
 * The failover lab's history, in the app's own database (0024_failover_steps.sql): never on the
 * pair whose failover it records.
 */

export async function recordFailoverStep(
  run: string,
  step: FailoverStep,
  db: Queryable = getPool(),
): Promise<{ id: string; recordedAt: Date }> {
  const { rows } = await db.query<{ id: string; recorded_at: Date }>(
    'INSERT INTO failover_steps (run, step) VALUES ($1, $2) RETURNING id::text AS id, recorded_at',
    [run, JSON.stringify(step)],
  );
  const row = rows[0];
  if (!row) throw new Error('the failover step was not recorded');
  return { id: row.id, recordedAt: row.recorded_at };
}

export async function listFailoverSteps(run: string, db: Queryable = getPool()): Promise<FailoverStep[]> {
  const { rows } = await db.query<{ step: FailoverStep }>(
    'SELECT step FROM failover_steps WHERE run = $1 ORDER BY id',
    [run],
  );
  return rows.map((row) => row.step);
}
