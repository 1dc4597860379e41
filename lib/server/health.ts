import 'server-only';
import { checkDatabase, type DatabaseHealth } from '../../db/health';
import { launcherIsRestartingDatabase } from './launcher-state';

/** The database's health for /api/health: up once it answers and the schema is in place, or down, or recovering. */
export function databaseHealth(): Promise<DatabaseHealth> {
  return checkDatabase({ restarting: launcherIsRestartingDatabase });
}
