import 'server-only';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { newClient } from './pool';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.sql$/;

/**
 * Applies the ordered SQL files in db/migrations that are not yet recorded in schema_migrations,
 * each in its own transaction. Safe to run concurrently (advisory lock) and repeatedly.
 * Returns the versions it applied.
 */
export async function migrate(url?: string): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((name) => MIGRATION_FILE.test(name)).sort();
  const client = newClient(url);
  await client.connect();
  try {
    // The lock first: two starts on an empty database must not both create the table.
    await client.query("SELECT pg_advisory_lock(hashtext('fencing_lab.migrate'))");
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`);
    const applied = new Set(
      (await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    const done: string[] = [];
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      if (applied.has(version)) continue;
      const sql = await readFile(`${MIGRATIONS_DIR}${file}`, 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(error as Error).message}`, { cause: error });
      }
      done.push(version);
    }
    return done;
  } finally {
    await client.end();
  }
}
