import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type EmbeddedCluster, startEmbeddedPostgres } from '../launcher/embedded-postgres';
import { commandLine, isAlive, terminate } from '../os/processes';

export type ThrowawayCluster = EmbeddedCluster & { dataDir: string; dispose(): Promise<void> };

/**
 * A throwaway embedded PostgreSQL in a temporary directory: for the tests (lib/testing/test-cluster.ts
 * names it so), the benchmarks and the durability scenario, which crashes it on purpose. Readable by the `postgres`
 * user that Postgres runs as when the tests run as root. dispose() stops whatever server runs on
 * the directory by then (a test may have crashed and restarted it) and removes it.
 */
export async function startThrowawayCluster(label: string): Promise<ThrowawayCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `fencing-lab-${label}-`));
  await chmod(dir, 0o755);
  const dataDir = path.join(dir, 'pg');
  const cluster = await startEmbeddedPostgres({ dataDir });
  return {
    ...cluster,
    dataDir,
    dispose: async () => {
      await cluster.stop();
      const pidFile = path.join(dataDir, 'postmaster.pid');
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : Number.NaN;
      if (Number.isInteger(pid) && isAlive(pid) && commandLine(pid).includes(dataDir)) {
        await terminate(pid, { signal: 'SIGINT' });
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
