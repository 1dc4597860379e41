import 'server-only';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { applyFunctions } from './apply-functions';
import { installJobQueue } from './job-queue-schema';
import { databaseUrl, newClient } from './pool';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
const MIGRATION_FILE = /^\d{4}_[a-z0-9_]+\.sql$/;

export type MigrateOptions = {
  /** Another migrations folder: tests run edited copies. */
  migrationsDir?: string;
  /** Another db/functions folder. */
  functionsDir?: string;
};

/**
 * A migration's checksum: its text with line endings made alike (a checkout on Windows must not read
 * as an edit).
 */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

/**
 * Applies the ordered SQL files in db/migrations that are not yet recorded in schema_migrations,
 * each in its own transaction, recording each one's checksum. Safe to run concurrently (advisory
 * lock) and repeatedly. Refuses to run when an applied migration's file has changed since: history
 * is appended to, never rewritten, or two databases would differ under the same version. Then
 * applies db/functions (apply-functions.ts). Returns the versions it applied.
 */
export async function migrate(url?: string, options: MigrateOptions = {}): Promise<string[]> {
  const dir = options.migrationsDir ?? MIGRATIONS_DIR;
  const files = (await readdir(dir)).filter((name) => MIGRATION_FILE.test(name)).sort();
  const texts = new Map(
    await Promise.all(files.map(async (file) => [file, await readFile(path.join(dir, file), 'utf8')] as const)),
  );
  const client = newClient(url);
  await client.connect();
  try {
    // The lock first: two starts on an empty database must not both create the table.
    await client.query("SELECT pg_advisory_lock(hashtext('fencing_lab.migrate'))");
    // A table lock waited for briefly, then again (withLockRetry): a migration queued behind any
    // session's open transaction (a person's worker line in a lab) would queue every query on that
    // table behind itself, and the room would stand still as long as that session liked.
    await client.query(`SET lock_timeout = ${MIGRATION_LOCK_TIMEOUT_MS}`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT clock_timestamp())`);
    const applied = await checkApplied(client, files, texts);
    const done: string[] = [];
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      if (applied.has(version)) continue;
      const sql = texts.get(file) as string;
      await withLockRetry(`migration ${file}`, async () => {
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('INSERT INTO schema_migrations (version, checksum) VALUES ($1, $2)', [
            version,
            migrationChecksum(sql),
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) throw error;
          throw new Error(`migration ${file} failed: ${(error as Error).message}`, { cause: error });
        }
      });
      done.push(version);
    }
    // The migrations hold tables and data; the functions are put as db/functions has them, every time.
    await withLockRetry('db/functions', () => applyFunctions(client, options.functionsDir));
    // What the worker role could write without bound, taken at every start (needs a superuser owner).
    const { rows: kept } = await client.query<{ kept: string[] }>('SELECT fl_revoke_worker_volume() AS kept');
    const still = kept[0]?.kept ?? [];
    if (still.length > 0) {
      console.warn(
        `[db] the worker role may still call ${still.join(', ')}: the database owner is not a superuser; ` +
          'a superuser must revoke them (docs/running-a-room.md, "Your own PostgreSQL")',
      );
    }
    // The job queue's own schema, under the same lock (db/job-queue-schema.ts).
    await installJobQueue(client, url ?? databaseUrl());
    return done;
  } finally {
    await client.end();
  }
}

/** How long a migration waits for a table's lock before it lets others by and tries again, and how often. */
export const MIGRATION_LOCK_TIMEOUT_MS = 2_000;
const MIGRATION_LOCK_TRIES = 15;
const LOCK_NOT_AVAILABLE = '55P03';

/** Runs `step` again while it fails for a lock it waited on too long; past the tries, says so in words. */
async function withLockRetry(what: string, step: () => Promise<void>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await step();
      return;
    } catch (error) {
      // The lock's SQLSTATE, on the error or on the one it wraps (apply-functions.ts names the file).
      const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
      if (code !== LOCK_NOT_AVAILABLE) throw error;
      if (tries >= MIGRATION_LOCK_TRIES) {
        throw new Error(
          `${what} waited ${tries} times for a table that another session keeps locked (${(error as Error).message}): ` +
            'end that session (pg_stat_activity shows it) and start again',
          { cause: error },
        );
      }
      await sleep(500);
    }
  }
}

/**
 * The versions already applied, after comparing each one's recorded checksum with its file. A
 * database migrated before checksums were kept gets its files' checksums recorded as they are now.
 */
async function checkApplied(client: pg.Client, files: string[], texts: Map<string, string>): Promise<Set<string>> {
  await client.query('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text');
  const { rows } = await client.query<{ version: string; checksum: string | null }>(
    'SELECT version, checksum FROM schema_migrations',
  );
  const recorded = new Map(rows.map((r) => [r.version, r.checksum]));
  for (const file of files) {
    const version = file.replace(/\.sql$/, '');
    if (!recorded.has(version)) continue;
    const checksum = migrationChecksum(texts.get(file) as string);
    const before = recorded.get(version) ?? null;
    if (before === null) {
      await client.query('UPDATE schema_migrations SET checksum = $2 WHERE version = $1 AND checksum IS NULL', [
        version,
        checksum,
      ]);
    } else if (before !== checksum) {
      throw new Error(
        `migration ${file} was changed after it was applied to this database (checksum ${before.slice(0, 12)}… ` +
          `recorded, ${checksum.slice(0, 12)}… on disk): put the change in a new migration and restore the file`,
      );
    }
  }
  return new Set(recorded.keys());
}
