import 'server-only';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { WORKER_BOUNDS } from '../lib/model/core/input-bounds';

export const FUNCTIONS_DIR = fileURLToPath(new URL('./functions/', import.meta.url));
const FUNCTION_FILE = /^[a-z][a-z0-9_]*\.sql$/;
/** The first line of every file: who may EXECUTE the function besides its owner. */
const EXECUTE_LINE = /^-- execute: (owner|app|worker)\n/;

export type FunctionFile = { name: string; file: string; sql: string; execute: 'owner' | 'app' | 'worker' };

/** db/functions: one file per function, named for it, its first line saying who may call it. */
export async function readFunctionFiles(dir: string = FUNCTIONS_DIR): Promise<FunctionFile[]> {
  const files = (await readdir(dir)).filter((name) => FUNCTION_FILE.test(name)).sort();
  return Promise.all(
    files.map(async (file) => {
      const sql = withBounds(file, (await readFile(path.join(dir, file), 'utf8')).replace(/\r\n/g, '\n'));
      const execute = EXECUTE_LINE.exec(sql)?.[1] as FunctionFile['execute'] | undefined;
      if (!execute) throw new Error(`db/functions/${file} must start with "-- execute: owner|app|worker"`);
      return { name: file.replace(/\.sql$/, ''), file, sql, execute };
    }),
  );
}

/** Where fl_bound.sql takes the bounds, once: an empty JSON object and a comment naming them. */
const BOUNDS_MARK = "'{}' /* WORKER_BOUNDS */";

/**
 * fl_bound.sql with lib/model/core/input-bounds.ts's WORKER_BOUNDS written in, as JSON: the one set
 * of bounds the forms and the database both enforce (issue 33 item 5). Any other file as it is.
 */
export function withBounds(file: string, sql: string): string {
  if (file !== 'fl_bound.sql') return sql;
  if (sql.split(BOUNDS_MARK).length !== 2) throw new Error(`db/functions/${file} must hold ${BOUNDS_MARK} once`);
  const json = JSON.stringify(WORKER_BOUNDS);
  if (json.includes("'")) throw new Error('a bound name holds a quote');
  return sql.replace(BOUNDS_MARK, `'${json}'`);
}

/**
 * Puts every function as its file has it, after the migrations, in one transaction: CREATE OR
 * REPLACE, then EXECUTE for exactly the role its file names (PUBLIC and the other role lose it), so
 * running it again changes nothing. A function whose arguments or result change is dropped by a
 * migration first; an old signature left beside the new one is refused, naming the file.
 */
export async function applyFunctions(client: pg.Client, dir: string = FUNCTIONS_DIR): Promise<void> {
  const files = await readFunctionFiles(dir);
  await client.query('BEGIN');
  try {
    // As pg_dump does: a body may call a function whose file comes later in the folder.
    await client.query('SET LOCAL check_function_bodies = off');
    const { rows: roles } = await client.query<{ app: string; worker: string }>(
      "SELECT fencing_lab_role('app') AS app, fencing_lab_role('worker') AS worker",
    );
    const { app, worker } = roles[0] as { app: string; worker: string };
    for (const f of files) {
      try {
        await client.query(f.sql);
      } catch (error) {
        throw new Error(`db/functions/${f.file} failed: ${(error as Error).message}`, { cause: error });
      }
      const { rows } = await client.query<{ signature: string }>(
        "SELECT p.oid::regprocedure::text AS signature FROM pg_proc p WHERE p.proname = $1 AND p.pronamespace = 'public'::regnamespace",
        [f.name],
      );
      if (rows.length !== 1) {
        throw new Error(
          `db/functions/${f.file}: ${rows.length} functions named ${f.name} (${rows.map((r) => r.signature).join(', ')}): ` +
            'drop the old signature in a migration',
        );
      }
      const fn = (rows[0] as { signature: string }).signature;
      await client.query(`REVOKE ALL ON FUNCTION ${fn} FROM PUBLIC, "${app}", "${worker}"`);
      if (f.execute !== 'owner') {
        await client.query(`GRANT EXECUTE ON FUNCTION ${fn} TO "${f.execute === 'app' ? app : worker}"`);
      }
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
