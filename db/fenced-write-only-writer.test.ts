import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/*
 * One write path: no source file but the fenced write may write protected_rows. Any statement that
 * inserts, updates, deletes, truncates, merges or copies into it counts, with or without a schema
 * prefix or quotes, across line breaks.
 */

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCE = /\.(ts|tsx|js|mjs|cjs|sql)$/;
const SKIP_DIRS = new Set(['node_modules', '.next', '.git', '.data', 'test-results', 'playwright-report']);
const ALLOWED = new Map([
  ['db/fenced-write.ts', 'the fenced write itself'],
  [
    'db/fenced-write-trigger.test.ts',
    'bypasses the fenced write on purpose, to prove the database refuses stale tokens',
  ],
  [
    'db/core-properties.test.ts',
    'random schedules bypass the fenced write too, to check the trigger refuses stale tokens',
  ],
  ['db/fenced-write-only-writer.test.ts', 'this test, which names the statements it looks for'],
  ['db/worker-role.test.ts', 'tries writes as the worker and app roles, to prove the database refuses them'],
  [
    'db/migrations/0015_lease_and_write_functions.sql',
    "the fenced write's own functions as first written (db/functions now has them as they run)",
  ],
  [
    'db/functions/fl_fenced_write.sql',
    'the fenced write in the database, the only way the app and worker roles write it',
  ],
  ['db/functions/fl_reset_protected_row.sql', "a lab's reset, through the fenced write's functions"],
  ['db/functions/fl_create_protected_row.sql', "a new row, through the fenced write's functions"],
  [
    'db/migrations/0013_shared_lab_rows.sql',
    'the schema seeding the shared fenced lab its row, once (an insert, whose token the insert trigger sets)',
  ],
]);

const TABLE = String.raw`(?:"?public"?\s*\.\s*)?"?protected_rows"?\b`;
const WRITE = new RegExp(
  String.raw`\b(?:UPDATE\s+(?:ONLY\s+)?${TABLE}|INSERT\s+INTO\s+${TABLE}|DELETE\s+FROM\s+(?:ONLY\s+)?${TABLE}|TRUNCATE\s+(?:TABLE\s+)?(?:ONLY\s+)?${TABLE}|MERGE\s+INTO\s+${TABLE}|COPY\s+${TABLE}[^;]*\bFROM\b)`,
  'i',
);

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return SKIP_DIRS.has(entry.name) ? [] : sourceFiles(full);
      return SOURCE.test(entry.name) ? [full] : [];
    }),
  );
  return nested.flat();
}

test('the detector recognises every way of writing the table', () => {
  for (const statement of [
    'UPDATE protected_rows SET value = 1',
    'update\n   public.protected_rows set value = 1',
    'INSERT INTO "protected_rows" (value) VALUES (1)',
    'DELETE FROM protected_rows WHERE id = 1',
    'TRUNCATE TABLE protected_rows',
    'MERGE INTO protected_rows USING x ON true',
    'COPY protected_rows (value) FROM STDIN',
  ]) {
    assert.match(statement, WRITE, statement);
  }
  for (const harmless of [
    'SELECT * FROM protected_rows',
    'BEFORE UPDATE ON protected_rows',
    'COPY protected_rows TO STDOUT',
  ]) {
    assert.doesNotMatch(harmless, WRITE, harmless);
  }
});

test('no source file but the fenced write writes protected_rows', async () => {
  const offenders: string[] = [];
  for (const file of await sourceFiles(ROOT)) {
    const relative = path.relative(ROOT, file).split(path.sep).join('/');
    if (ALLOWED.has(relative)) continue;
    const text = await readFile(file, 'utf8');
    const match = WRITE.exec(text);
    if (match) offenders.push(`${relative}: ${match[0].replace(/\s+/g, ' ')}`);
  }
  assert.deepEqual(offenders, [], 'writes to protected_rows must go through db/fenced-write.ts');
});

test('the fenced write really is where the writes are: its functions in the database, called from db/fenced-write.ts', async () => {
  assert.match(await readFile(path.join(ROOT, 'db/functions/fl_fenced_write.sql'), 'utf8'), WRITE);
  const module = await readFile(path.join(ROOT, 'db/fenced-write.ts'), 'utf8');
  for (const fn of ['fl_fenced_write', 'worker_fenced_write', 'fl_reset_protected_row', 'fl_create_protected_row']) {
    assert.match(module, new RegExp(`\\b${fn}\\(`), fn);
  }
});
