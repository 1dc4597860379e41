import 'server-only';

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
  throw new Error(`workerRoleName(${database}): not implemented yet`);
}

/**
 * The room's worker password: FENCING_LAB_WORKER_PASSWORD when set, otherwise the one generated once
 * for this database (so it is random per data directory, and every app server on the database agrees).
 * Sets it on the worker role. Runs as the owner, after the migrations.
 */
export async function ensureWorkerPassword(ownerUrl: string): Promise<string> {
  throw new Error(`ensureWorkerPassword(${ownerUrl.length}): not implemented yet`);
}

/**
 * The URL a worker connects with: the owner URL's database and port, the worker role and its password,
 * and `host` (an address the room can reach) instead of the owner URL's host when given.
 */
export function workerUrlFrom(ownerUrl: string, password: string, host?: string): string {
  throw new Error(`workerUrlFrom(${ownerUrl.length}, ${password.length}, ${host}): not implemented yet`);
}
