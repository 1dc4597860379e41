import 'server-only';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/*
 * The database's roles besides its owner (issue 11). CONTRACT STUB: the privileges work (migrations,
 * SECURITY DEFINER functions) fills these in; the launcher's remote-worker door codes against them.
 *
 * - The owner (DATABASE_URL's user) runs the migrations and owns every table and function.
 * - The worker role (LOGIN, password) owns nothing and may only EXECUTE the worker's functions.
 *   Every worker, local or remote, connects as it. Roles are cluster-wide, so its name is made from
 *   the database's name: two Fencing Lab databases in one cluster never share a worker role.
 * - The app role (NOLOGIN) is what the app server's pools run as (`-c role=…` on the owner's URL).
 */

/** The worker role of the database `database` (a valid identifier of at most 63 bytes). */
export function workerRoleName(database: string): string {
  // STAND-IN (h-remote, to test the launcher's door): the roles work replaces this file.
  const name = `${database}_worker`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name) || Buffer.byteLength(name) > 63) {
    throw new Error(`no plain worker role name for database ${database}`);
  }
  return name;
}

/**
 * The room's worker password: FENCING_LAB_WORKER_PASSWORD when set, otherwise the one generated once
 * for this database (so it is random per data directory, and every app server on the database agrees).
 * Sets it on the worker role. Runs as the owner, after the migrations.
 */
export async function ensureWorkerPassword(ownerUrl: string): Promise<string> {
  // STAND-IN (h-remote): creates the role when missing and sets a password, persisting nothing.
  const password = process.env.FENCING_LAB_WORKER_PASSWORD || randomBytes(18).toString('base64url');
  const client = new pg.Client({ connectionString: ownerUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
    const role = client.escapeIdentifier(workerRoleName(rows[0]?.db ?? ''));
    await client.query(`DO $$ BEGIN CREATE ROLE ${role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    await client.query(`ALTER ROLE ${role} LOGIN PASSWORD ${client.escapeLiteral(password)}`);
  } finally {
    await client.end();
  }
  return password;
}

/**
 * The URL a worker connects with: the owner URL's database and port, the worker role and its password,
 * and `host` (an address the room can reach) instead of the owner URL's host when given.
 */
export function workerUrlFrom(ownerUrl: string, password: string, host?: string): string {
  // STAND-IN (h-remote).
  const url = new URL(ownerUrl);
  url.username = workerRoleName(decodeURIComponent(url.pathname.slice(1)));
  url.password = encodeURIComponent(password);
  if (host) url.hostname = host.includes(':') ? `[${host}]` : host;
  url.search = '';
  return url.toString();
}
