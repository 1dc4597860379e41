import type { ProcessRun } from '../os/processes';

/*
 * How an app server's supervisor starts the worker program (main.ts) for a worker a trainer started
 * from a page: the same arguments as by hand, plus, in one environment variable, which server run
 * started it and whether this is a restart. The lifeline is the file descriptor after stdio: a pipe
 * whose write end only that server holds (lib/worker/listener.ts watches it).
 */

export const STARTED_BY_ENV = 'FENCING_LAB_STARTED_BY';
export const LIFELINE_FD = 3;

/** joinKey: a private lab's key, which the server reads for its workers (a worker started by hand has none). */
export type StartedBy = { server: ProcessRun; restart: boolean; joinKey?: string };

/** What the supervisor puts in the environment. */
export function startedByEnv(startedBy: StartedBy): Record<string, string> {
  return { [STARTED_BY_ENV]: JSON.stringify(startedBy) };
}

/** Read by the worker: undefined when started by hand. */
export function startedByServer(env: NodeJS.ProcessEnv): (StartedBy & { lifelineFd: number }) | undefined {
  const raw = env[STARTED_BY_ENV];
  if (!raw) return undefined;
  const parsed = JSON.parse(raw) as Partial<StartedBy>;
  const server = parsed.server;
  if (!server || typeof server.pid !== 'number' || typeof server.startTicks !== 'string') {
    throw new Error(`${STARTED_BY_ENV} does not name a server run`);
  }
  return {
    server,
    restart: parsed.restart === true,
    lifelineFd: LIFELINE_FD,
    ...(typeof parsed.joinKey === 'string' ? { joinKey: parsed.joinKey } : {}),
  };
}
