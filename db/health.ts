import 'server-only';
import { getPool } from './pool';

export type DatabaseHealth =
  | { status: 'ok'; databaseTime: string; migrations: number }
  | { status: 'unavailable'; error: string };

export async function checkDatabase(): Promise<DatabaseHealth> {
  try {
    const { rows } = await getPool().query<{ now: Date; migrations: number }>(
      'SELECT clock_timestamp() AS now, (SELECT count(*)::int FROM schema_migrations) AS migrations',
    );
    const row = rows[0];
    if (!row) return { status: 'unavailable', error: 'the database returned nothing' };
    return { status: 'ok', databaseTime: row.now.toISOString(), migrations: row.migrations };
  } catch (error) {
    console.error('[health] database check failed:', error);
    const missingSchema = (error as { code?: string }).code === '42P01';
    return {
      status: 'unavailable',
      error: missingSchema ? 'the schema is not installed (run `npm start`)' : 'the database is not reachable',
    };
  }
}
