import { createHash } from 'node:crypto';

/*
 * The names of the database's roles besides its owner (roles.ts says what each may do), made from the
 * database's name exactly as the migrations make them (fencing_lab_role in 0014_roles.sql). Pure: the
 * pools (pool.ts) name the app role with it, and roles.ts, which connects through pool.ts, the others.
 * Not server-only: names hold no secret, and the launcher's pg_hba.conf (embedded-postgres.ts) needs the
 * worker role's, where Playwright's e2e helpers (e2e/app-database.ts) load it without Next's conditions.
 */

/** A role's name: its purpose and the database's name, readable and cut to fit, with a digest that keeps two databases apart. */
export function roleName(purpose: 'worker' | 'local' | 'app', database: string): string {
  const readable = database
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 32);
  const digest = createHash('md5').update(database, 'utf8').digest('hex').slice(0, 8);
  return `fencing_${purpose}_${readable}_${digest}`;
}

/** The worker role of the database `database` (a valid identifier of at most 63 bytes). */
export function workerRoleName(database: string): string {
  return roleName('worker', database);
}

/**
 * The role the workers an app server forks connect as (0041): the worker role's privileges, its own
 * connection slots and password, and no way in from the network, so the room cannot take its line.
 */
export function localWorkerRoleName(database: string): string {
  return roleName('local', database);
}

/** The role the app server's pools run as, in the database `database`. */
export function appRoleName(database: string): string {
  return roleName('app', database);
}

/** The database a connection string names. */
export function databaseNameOf(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error('the database URL names no database');
  return name;
}
