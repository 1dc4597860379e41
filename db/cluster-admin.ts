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

/**
 * The backends of the app's database that run as a worker role's member (each person's worker line,
 * 0046, and the server's local worker role), as the owner sees them in pg_stat_activity.
 */
export async function workerBackendPids(client: pg.Client): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    `SELECT a.pid FROM pg_stat_activity a
      WHERE a.datname = current_database()
        AND (a.usename = fencing_lab_role('local') OR a.usename IN (SELECT role_name FROM worker_lines))`,
  );
  return rows.map((row) => row.pid);
}

/** Ends one backend of the cluster (as pg_terminate_backend does: its transaction is rolled back). */
export async function endBackend(client: pg.Client, pid: number): Promise<boolean> {
  const { rows } = await client.query<{ ended: boolean }>('SELECT pg_terminate_backend($1) AS ended', [pid]);
  return rows[0]?.ended ?? false;
}
