import 'server-only';
import type { Queryable } from './pool';

/** This database's identity (0012_database_identity.sql): it changes only with the database itself. */
export async function readDatabaseIdentity(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM database_identity');
  const id = rows[0]?.id;
  if (!id) throw new Error('the database has no identity (migration 0012 not applied)');
  return id;
}
