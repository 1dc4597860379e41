import 'server-only';
import { randomBytes } from 'node:crypto';
import { newClient } from './pool';
import { databaseNameOf, roleName } from './role-names';

export { appRoleName, databaseNameOf, localWorkerRoleName, workerRoleName } from './role-names';

/*
 * The database's roles besides its owner (issue 11; migrations 0014-0016, 0041).
 *
 * - The owner (DATABASE_URL's user) runs the migrations and owns every table and function.
 * - The worker role (LOGIN, password) owns nothing and may only EXECUTE the worker's functions
 *   (0016_worker_functions.sql). The room's workers connect as it. Roles are
 *   cluster-wide, so its name is made from the database's name: two Fencing Lab databases in one
 *   cluster never share a worker role.
 * - The local worker role (LOGIN, a member of the worker role) is what the workers an app server
 *   forks connect as: loopback only, its own password and connection slots (0041).
 * - The app role (NOLOGIN) is what the app server's pools run as (`-c role=…` on the owner's URL).
 *
 * The names are made in role-names.ts exactly as the migrations make them (fencing_lab_role in 0014_roles.sql):
 * a module of its own, which pool.ts reads without importing this one (which opens its clients through pool.ts).
 */

const MIN_PASSWORD_CHARS = 16;

/**
 * The room's worker password: FENCING_LAB_WORKER_PASSWORD when set, otherwise the one generated once
 * for this database (so it is random per data directory, and every app server on the database agrees).
 * Sets it on the worker role. Runs as the owner, after the migrations.
 */
export async function ensureWorkerPassword(ownerUrl: string): Promise<string> {
  const chosen = process.env.FENCING_LAB_WORKER_PASSWORD;
  if (chosen !== undefined && chosen.length < MIN_PASSWORD_CHARS) {
    throw new Error(`FENCING_LAB_WORKER_PASSWORD must be at least ${MIN_PASSWORD_CHARS} characters`);
  }
  const client = newClient(ownerUrl);
  await client.connect();
  try {
    await client.query('BEGIN');
    // Two app servers starting at once agree on one password: the first insert wins.
    await client.query('INSERT INTO worker_credentials (password) VALUES ($1) ON CONFLICT DO NOTHING', [
      randomBytes(18).toString('base64url'),
    ]);
    const { rows } = await client.query<{ password: string }>('SELECT password FROM worker_credentials');
    const password = chosen ?? (rows[0] as { password: string }).password;
    // ALTER ROLE takes no parameters: format() quotes the name and the literal.
    const { rows: statement } = await client.query<{ sql: string }>(
      "SELECT format('ALTER ROLE %I PASSWORD %L', fencing_lab_role('worker'), $1::text) AS sql",
      [password],
    );
    await client.query((statement[0] as { sql: string }).sql);
    await client.query('COMMIT');
    return password;
  } catch (error) {
    // A failed ROLLBACK leaves nothing to undo; the first error is rethrown.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * The local worker role's password: generated once for this database and kept by the owner alone
 * (worker_credentials.local_password); nobody outside the app servers is ever given it. Sets it on the
 * local worker role. Runs as the owner, after the migrations.
 */
export async function ensureLocalWorkerPassword(ownerUrl: string): Promise<string> {
  const client = newClient(ownerUrl);
  await client.connect();
  try {
    await client.query('BEGIN');
    // The row exists once ensureWorkerPassword ran; two servers at once agree on the first value.
    const { rows } = await client.query<{ password: string | null }>(
      'UPDATE worker_credentials SET local_password = coalesce(local_password, $1) RETURNING local_password AS password',
      [randomBytes(18).toString('base64url')],
    );
    const password = rows[0]?.password;
    if (!password) throw new Error('no worker credentials yet: ensureWorkerPassword runs first');
    const { rows: statement } = await client.query<{ sql: string }>(
      "SELECT format('ALTER ROLE %I PASSWORD %L', fencing_lab_role('local'), $1::text) AS sql",
      [password],
    );
    await client.query((statement[0] as { sql: string }).sql);
    await client.query('COMMIT');
    return password;
  } catch (error) {
    // A failed ROLLBACK leaves nothing to undo; the first error is rethrown.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/**
 * The URL a worker connects with: the owner URL's database and port, the worker role and its password,
 * and `host` (an address the room can reach) instead of the owner URL's host when given.
 */
export function workerUrlFrom(
  ownerUrl: string,
  password: string,
  host?: string,
  role: 'worker' | 'local' = 'worker',
): string {
  const url = new URL(ownerUrl);
  url.username = encodeURIComponent(roleName(role, databaseNameOf(ownerUrl)));
  url.password = encodeURIComponent(password);
  if (host !== undefined) url.hostname = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return url.toString();
}
