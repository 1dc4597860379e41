import path from 'node:path';
import { startEmbeddedPostgres } from '../lib/launcher/embedded-postgres';
import { E2E_DATA_DIR } from '../playwright.config';

/**
 * The database of the app under test, as a remote worker would be told it: DATABASE_URL when the
 * app runs on one, otherwise the embedded PostgreSQL `npm start` runs in E2E_DATA_DIR, found the
 * way the scenario runner finds it (its owner file and password beside the data directory).
 */
export async function appDatabaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const cluster = await startEmbeddedPostgres({ dataDir: path.join(E2E_DATA_DIR, 'pg') });
  if (cluster.owned) {
    // Nobody ran it: this call started it. The app under test is not using it, so neither do we.
    await cluster.stop();
    throw new Error(`the app under test runs no embedded PostgreSQL in ${E2E_DATA_DIR}`);
  }
  return cluster.url;
}
