import path from 'node:path';
import { migrate } from '../../db/migrate';
import { toFencingError } from '../../db/pool';
import { isFencingError } from '../model/core/errors';
import { type EmbeddedCluster, startEmbeddedPostgres } from './embedded-postgres';
import { dataDir, EMBEDDED_PG_PREFERRED_PORT } from './paths';

/*
 * What the command lines that run on the room's database share (`npm run scenario`, `npm run explore`;
 * `npm run soak` runs on a throwaway cluster of its own and shares the exit codes and the interrupt):
 * the database (DATABASE_URL's, or the embedded one `npm start` uses), the exit codes every one of them
 * gives for the same meaning, a failure in words, and a clean end on Ctrl-C.
 */

/** The exit codes with one meaning in every command: 2 bad usage, 3 no database, 4 any other failure, 130 interrupted. */
export const COMMAND_EXIT = { usage: 2, noDatabase: 3, failed: 4, interrupted: 130 } as const;

/**
 * The database a command runs on, migrated: DATABASE_URL's, or else the embedded one `npm start` uses
 * (shared if it is running, started otherwise; DATABASE_URL is then set to it). Returns the cluster
 * when this command started or joined the embedded one, for its cleanup to stop (a shared one stays up).
 */
export async function commandDatabase(): Promise<EmbeddedCluster | undefined> {
  let cluster: EmbeddedCluster | undefined;
  if (!process.env.DATABASE_URL) {
    cluster = await startEmbeddedPostgres({
      dataDir: path.join(dataDir(), 'pg'),
      preferredPort: EMBEDDED_PG_PREFERRED_PORT,
    });
    process.env.DATABASE_URL = cluster.url;
  }
  await migrate();
  return cluster;
}

/**
 * A failure the command could not handle, as its exit code and the words for stderr: no database
 * reachable (3, with what to do), or any other (4, `<command> failed: …`).
 */
export function commandFailure(command: string, error: unknown): { code: 3 | 4; words: string } {
  const failure = toFencingError(error);
  if (isFencingError(failure, 'db_unavailable')) {
    return {
      code: COMMAND_EXIT.noDatabase,
      words: `${failure.message}\nSet DATABASE_URL to a reachable PostgreSQL, or unset it to use the embedded one.`,
    };
  }
  return {
    code: COMMAND_EXIT.failed,
    words: `${command} failed: ${error instanceof Error ? error.message : String(error)}`,
  };
}

/** On Ctrl-C (or SIGTERM), `cleanUp` once, then exit 130. */
export function cleanUpOnInterrupt(cleanUp: () => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      void cleanUp().finally(() => process.exit(COMMAND_EXIT.interrupted));
    });
  }
}
