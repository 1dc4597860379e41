import { z } from 'zod';

/*
 * A warm worker: an app server starts the worker program ahead of need (lib/supervisor/warm-workers.ts),
 * so that the seconds Node and its modules take to load are paid before a trainee's guard attack or a
 * trainer's Start, not during it. The process loads, then waits on its stdin for one assignment: the
 * arguments and the environment (the database URL, which server started it) a cold start would have
 * been given. Only the server that spawned it holds the other end of that pipe; when the server goes
 * before assigning it, the pipe ends and so does the process. A warm worker is used once: it is never
 * handed back, so the pool hands out only processes that have run nothing.
 */

export const WARM_ENV = 'FENCING_LAB_WARM';

/** What the server writes to a warm worker's stdin, as one JSON line. */
export const warmAssignmentSchema = z
  .object({
    args: z.array(z.string().max(500)).max(20),
    env: z.record(z.string().regex(/^[A-Z_]+$/), z.string().max(4_000)),
  })
  .strict();

export type WarmAssignment = z.infer<typeof warmAssignmentSchema>;

/** The assignment line for a worker's arguments and environment. */
export function warmAssignmentLine(assignment: WarmAssignment): string {
  return `${JSON.stringify(assignment)}\n`;
}

/**
 * In a warm worker, waits for its assignment and makes it the process's arguments and environment;
 * false when the server ended the pipe without one (the process should then end quietly). A process
 * started without WARM_ENV returns true at once.
 */
export async function awaitWarmAssignment(): Promise<boolean> {
  if (process.env[WARM_ENV] !== '1') return true;
  const line = await firstLine(process.stdin);
  if (line === undefined) return false;
  const assignment = warmAssignmentSchema.parse(JSON.parse(line));
  process.argv = [...process.argv.slice(0, 2), ...assignment.args];
  Object.assign(process.env, assignment.env);
  delete process.env[WARM_ENV];
  return true;
}

function firstLine(stream: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buffered = '';
    const done = (line: string | undefined) => {
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      buffered += chunk.toString();
      const end = buffered.indexOf('\n');
      if (end >= 0) done(buffered.slice(0, end));
      else if (buffered.length > 64_000) done(undefined);
    };
    const onEnd = () => done(undefined);
    stream.on('data', onData);
    stream.on('end', onEnd);
  });
}
