import path from 'node:path';
import pg from 'pg';
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

/**
 * The URL a remote worker of the app under test is given: the worker role's (db/roles.ts), with the
 * room's worker password, never the owner's. Read as the owner from the database itself, where the
 * launcher's ensureWorkerPassword keeps it (unless FENCING_LAB_WORKER_PASSWORD chose it).
 */
export async function appWorkerUrl(): Promise<string> {
  return workerUrlOf(await appDatabaseUrl());
}

/** The worker role's URL for the database `ownerUrl` names, read as that owner. */
export async function workerUrlOf(ownerUrl: string): Promise<string> {
  const db = new pg.Client({ connectionString: ownerUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ role: string; password: string }>(
      "SELECT fencing_lab_role('worker') AS role, password FROM worker_credentials",
    );
    const row = rows[0];
    if (!row) throw new Error('the app under test has set no worker password');
    const url = new URL(ownerUrl);
    url.username = encodeURIComponent(row.role);
    url.password = encodeURIComponent(process.env.FENCING_LAB_WORKER_PASSWORD ?? row.password);
    return url.toString();
  } finally {
    await db.end();
  }
}
