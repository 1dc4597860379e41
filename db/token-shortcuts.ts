import 'server-only';
import type pg from 'pg';

/*
 * The ways of taking a token that this lab shows to be wrong, for the durability scenario
 * (lib/scenario/durability.ts) only: the app takes its tokens with its lease grants (db/leases.ts).
 */

/** A lone autocommit nextval: the shortcut that can hand out a token twice after a crash. */
export async function takeLoneNextval(session: pg.Client): Promise<number> {
  const { rows } = await session.query<{ token: string }>("SELECT nextval('write_epoch') AS token");
  return Number(rows[0]?.token);
}

/** A nextval in a transaction that rolls back: the load that leaves the lone shortcut's token unflushed. */
export async function burnTokenInRollback(session: pg.Client): Promise<void> {
  await session.query('BEGIN');
  await session.query("SELECT nextval('write_epoch')");
  await session.query('ROLLBACK');
}
