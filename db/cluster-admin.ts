import type pg from 'pg';

/*
 * What the launcher asks of the PostgreSQL cluster it runs, as its owner, on the `postgres`
 * database: the app's database, and the configuration it wrote. No 'server-only' here: the
 * Playwright suite finds the embedded cluster through the launcher's module too.
 */

/** Creates the database `name` unless it exists. `name` is the launcher's own constant, a plain identifier. */
export async function ensureDatabaseExists(client: pg.Client, name: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
}

/** `listen_addresses` of the running server; with `reload`, after it has re-read its configuration files. */
export async function listenAddresses(client: pg.Client, { reload = false } = {}): Promise<string> {
  if (reload) await client.query('SELECT pg_reload_conf()');
  const { rows } = await client.query<{ listen_addresses: string }>('SHOW listen_addresses');
  return rows[0]?.listen_addresses ?? '';
}
