import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startTestCluster, type TestCluster } from '../lib/testing/test-cluster';
import { MIGRATION_LOCK_TIMEOUT_MS, migrate, migrationChecksum } from './migrate';

/*
 * The runner keeps a checksum of every migration it applied and refuses to start when one of those
 * files has changed since. On a cluster of its own, with a copy of db/migrations that the tests edit.
 */

const MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
const EDITED = '0004_labs.sql';

let cluster: TestCluster;
let client: pg.Client;
let copy: string;

before(async () => {
  cluster = await startTestCluster('checksums');
  copy = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-migrations-'));
  await cp(MIGRATIONS, copy, { recursive: true });
  await migrate(cluster.url, { migrationsDir: copy });
  client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
});
after(async () => {
  await client?.end();
  await cluster?.dispose();
  await rm(copy, { recursive: true, force: true });
});

async function checksumOf(version: string): Promise<string | null> {
  const { rows } = await client.query('SELECT checksum FROM schema_migrations WHERE version = $1', [version]);
  return rows[0]?.checksum ?? null;
}

test('every applied migration is recorded with the checksum of its file', async () => {
  const text = await readFile(path.join(copy, EDITED), 'utf8');
  assert.equal(await checksumOf('0004_labs'), migrationChecksum(text));
  const { rows } = await client.query('SELECT count(*)::int AS n FROM schema_migrations WHERE checksum IS NULL');
  assert.equal(rows[0].n, 0);
});

test('a migration edited after it was applied stops the runner, which names the file', async () => {
  const file = path.join(copy, EDITED);
  const text = await readFile(file, 'utf8');
  await writeFile(file, `${text}\n-- an afterthought\n`);
  try {
    await assert.rejects(migrate(cluster.url, { migrationsDir: copy }), (error: Error) => {
      assert.match(error.message, /migration 0004_labs\.sql was changed after it was applied/);
      return true;
    });
  } finally {
    await writeFile(file, text);
  }
  // Only line endings differ (a checkout on Windows): not an edit.
  await writeFile(file, text.replace(/\n/g, '\r\n'));
  try {
    assert.deepEqual(await migrate(cluster.url, { migrationsDir: copy }), []);
  } finally {
    await writeFile(file, text);
  }
});

test('a database migrated before checksums were kept gets them on its next run, then holds them', async () => {
  await client.query('ALTER TABLE schema_migrations DROP COLUMN checksum');
  assert.deepEqual(await migrate(cluster.url, { migrationsDir: copy }), []);
  const text = await readFile(path.join(copy, EDITED), 'utf8');
  assert.equal(await checksumOf('0004_labs'), migrationChecksum(text));

  await client.query("UPDATE schema_migrations SET checksum = repeat('0', 64) WHERE version = '0004_labs'");
  await assert.rejects(migrate(cluster.url, { migrationsDir: copy }), /migration 0004_labs\.sql was changed/);
  await client.query('UPDATE schema_migrations SET checksum = $1 WHERE version = $2', [
    migrationChecksum(text),
    '0004_labs',
  ]);
  assert.deepEqual(await migrate(cluster.url, { migrationsDir: copy }), []);
});

test("a migration waiting for a table's lock lets the room's reads by, and is applied once the lock is let go", {
  timeout: 60_000,
}, async () => {
  // A session keeping a transaction open on a table (a person's worker line could) once held a migration,
  // and every query on that table queued behind it, for as long as that session liked (issue 33 review).
  const file = path.join(copy, '0999_waits_for_a_lock.sql');
  await writeFile(file, 'ALTER TABLE labs ADD COLUMN waited_for_a_lock integer;\n');
  const holder = new pg.Client({ connectionString: cluster.url });
  const reader = new pg.Client({ connectionString: cluster.url });
  await holder.connect();
  await reader.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT count(*) FROM labs');
    const migrating = migrate(cluster.url, { migrationsDir: copy });
    // The migration is queued on the table: wait until the database says so.
    for (;;) {
      const { rows } = await client.query(
        "SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'labs' AND NOT l.granted",
      );
      if (rows[0].n > 0) break;
      await sleep(20);
    }
    const read = reader.query('SELECT count(*)::int AS n FROM labs').then(() => 'read');
    const outcome = await Promise.race([read, sleep(MIGRATION_LOCK_TIMEOUT_MS * 3, 'still queued')]);
    assert.equal(outcome, 'read', "a read of the table waits at most the migration's lock timeout");
    await holder.query('COMMIT');
    assert.ok((await migrating).includes('0999_waits_for_a_lock'));
  } finally {
    await holder.end();
    await reader.end();
    await rm(file, { force: true });
  }
});
