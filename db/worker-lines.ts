import 'server-only';
import { randomBytes } from 'node:crypto';
import { getPool, type Queryable, toFencingError } from './pool';

/*
 * A worker line per person (issue 33; 0046_worker_lines_per_person.sql): whoever runs a worker from
 * their own machine connects as a login role of their own, issued from a lab's page, a member of the
 * worker group (so exactly the worker's privileges), at most WORKER_LINE_CONNECTIONS connections. What
 * one person does to their own role (its settings, its password) reaches no one else; a line whose
 * settings were changed is refused at its next join and put back by the watchdog.
 */

/** Connections one line may hold: two workers (each a lease loop and a listener thread). */
export const WORKER_LINE_CONNECTIONS = 4;
/** Lines issued to one client address (a browser each, per lab page). */
export const WORKER_LINES_PER_ADDRESS = 8;

export type WorkerLine = { role: string; password: string };

/**
 * Issues the line of one browser (`holder`, the hash of its owner secret) for one lab's page: a new
 * role, or the same one with a new password and its settings as issued. Refused with `limit_reached`
 * when the address or the room has no line left.
 */
export async function issueWorkerLine(
  request: { holder: string; lab: string; address: string | undefined },
  db: Queryable = getPool(),
): Promise<WorkerLine> {
  const password = randomBytes(18).toString('base64url');
  try {
    const { rows } = await db.query<{ role: string }>(
      'SELECT fl_issue_worker_line($1, $2, $3::inet, $4, $5, $6) AS role',
      [
        request.holder,
        request.lab,
        request.address ?? null,
        password,
        WORKER_LINE_CONNECTIONS,
        WORKER_LINES_PER_ADDRESS,
      ],
    );
    return { role: (rows[0] as { role: string }).role, password };
  } catch (error) {
    throw toFencingError(error);
  }
}

/** The URL a line connects with: the owner URL's database and port, the line's role and password, `host` if given. */
export function workerLineUrl(ownerUrl: string, line: WorkerLine, host?: string): string {
  const url = new URL(ownerUrl);
  url.username = encodeURIComponent(line.role);
  url.password = encodeURIComponent(line.password);
  if (host !== undefined) url.hostname = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return url.toString();
}

/**
 * Ends every worker line's session that another role's session waited on for longer than `waitMs`,
 * or whose transaction is open longer than `transactionMs`; returns how many.
 */
export async function endBlockingWorkerSessions(
  budget: { waitMs: number; transactionMs: number },
  db: Queryable = getPool(),
): Promise<number> {
  const { rows } = await db.query<{ ended: number }>('SELECT fl_end_blocking_worker_sessions($1, $2) AS ended', [
    budget.waitMs,
    budget.transactionMs,
  ]);
  return rows[0]?.ended ?? 0;
}

/** Puts back the settings of every line whose person changed them; returns how many. */
export async function restoreChangedWorkerLines(db: Queryable = getPool()): Promise<number> {
  const { rows } = await db.query<{ restored: number }>('SELECT fl_restore_changed_worker_lines() AS restored');
  return rows[0]?.restored ?? 0;
}
