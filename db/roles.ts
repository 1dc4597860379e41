import 'server-only';
import { randomBytes } from 'node:crypto';
import { newClient } from './pool';
import { databaseNameOf, roleName } from './role-names';

export { appRoleName, databaseNameOf, localWorkerRoleName, workerRoleName } from './role-names';

/*
 * The database's roles besides its owner (issue 11; migrations 0014-0016, 0041).
 *
 * - The owner (DATABASE_URL's user) runs the migrations and owns every table and function.
 * - The worker role (NOLOGIN since 0046, a group) owns nothing and may only EXECUTE the worker's
 *   functions (0016_worker_functions.sql). Roles are cluster-wide, so its name is made from the
 *   database's name: two Fencing Lab databases in one cluster never share a worker role.
 * - Each person's worker line (LOGIN, a member of the worker role; db/worker-lines.ts, 0046) is what a
 *   worker run from a person's own machine connects as: its own password, settings and slots.
 * - The local worker role (LOGIN, a member of the worker role) is what the workers an app server
 *   forks connect as: loopback only, its own password and connection slots (0041).
 * - The app role (NOLOGIN) is what the app server's pools run as (`-c role=…` on the owner's URL).
 *
 * The names are made in role-names.ts exactly as the migrations make them (fencing_lab_role in 0014_roles.sql):
 * a module of its own, which pool.ts reads without importing this one (which opens its clients through pool.ts).
 */

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
    // Two servers at once agree on the first value.
    const { rows } = await client.query<{ password: string }>(
      `INSERT INTO worker_credentials (local_password) VALUES ($1)
       ON CONFLICT (singleton) DO UPDATE SET local_password = coalesce(worker_credentials.local_password, EXCLUDED.local_password)
       RETURNING local_password AS password`,
      [randomBytes(18).toString('base64url')],
    );
    const password = (rows[0] as { password: string }).password;
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

/** The URL the workers an app server forks connect with: the owner URL's database and port, the local worker role and its password. */
export function localWorkerUrlFrom(ownerUrl: string, password: string): string {
  const url = new URL(ownerUrl);
  url.username = encodeURIComponent(roleName('local', databaseNameOf(ownerUrl)));
  url.password = encodeURIComponent(password);
  return url.toString();
}
