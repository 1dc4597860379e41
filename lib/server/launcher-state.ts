import 'server-only';
import { readFile } from 'node:fs/promises';

/**
 * True while the launcher is restarting the embedded PostgreSQL it watches (it writes the file
 * named by FENCING_LAB_DATABASE_STATE_FILE; see lib/launcher/database-watchdog.ts). False when
 * there is no launcher or no such file (DATABASE_URL: the database is someone else's to restart).
 */
export async function launcherIsRestartingDatabase(): Promise<boolean> {
  const file = process.env.FENCING_LAB_DATABASE_STATE_FILE;
  if (!file) return false;
  try {
    const { state } = JSON.parse(await readFile(file, 'utf8')) as { state?: unknown };
    return state === 'restarting';
  } catch {
    // No state file, or one being rewritten: the launcher is not restarting the database.
    return false;
  }
}
