import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type EmbeddedCluster, startEmbeddedPostgres } from '../launcher/embedded-postgres';

/**
 * A throwaway embedded PostgreSQL in a temporary directory, for tests. Readable by the `postgres`
 * user that Postgres runs as when the tests run as root.
 */
export async function startTestCluster(label: string): Promise<EmbeddedCluster & { dispose(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `fencing-lab-${label}-`));
  await chmod(dir, 0o755);
  const cluster = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg') });
  return {
    ...cluster,
    dispose: async () => {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
