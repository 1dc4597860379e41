import 'server-only';
import { OutageLog } from '../lib/log/outage-log';
import { singleton } from '../lib/os/process-singletons';
import { getPool } from './pool';

/**
 * up: the database answers and the schema is in place. recovering: PostgreSQL says it is starting
 * up or replaying its log (57P03), or the launcher is restarting it. down: anything else.
 */
export type DatabaseHealth =
  | { status: 'up'; databaseTime: string; migrations: number }
  | { status: 'recovering' | 'down'; error: string };

const STARTING_UP = '57P03';
const UNDEFINED_TABLE = '42P01';

const healthLog = singleton('db.health-log', () => new OutageLog('health', 'the database check'));

/**
 * `restarting` says whether whoever runs the database is restarting it right now (the launcher
 * knows; db/ does not read its files), so that a refused connection then reads as recovering.
 */
export async function checkDatabase(
  { restarting }: { restarting: () => Promise<boolean> } = { restarting: async () => false },
): Promise<DatabaseHealth> {
  try {
    const { rows } = await getPool().query<{ now: Date; migrations: number }>(
      'SELECT clock_timestamp() AS now, (SELECT count(*)::int FROM schema_migrations) AS migrations',
    );
    const row = rows[0];
    if (!row) return { status: 'down', error: 'the database returned nothing' };
    healthLog.succeeded();
    return { status: 'up', databaseTime: row.now.toISOString(), migrations: row.migrations };
  } catch (error) {
    healthLog.failed(error);
    const code = (error as { code?: string }).code;
    if (code === UNDEFINED_TABLE) return { status: 'down', error: 'the schema is not installed (run `npm start`)' };
    if (code === STARTING_UP || (await restarting())) {
      return { status: 'recovering', error: 'the database is starting up after a stop or a crash' };
    }
    return { status: 'down', error: 'the database is not reachable' };
  }
}
