import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { migrate } from '../../db/migrate';
import { ensureLocalWorkerPassword, ensureWorkerPassword } from '../../db/roles';
import { PROJECT_ROOT } from '../launcher/paths';
import { startWorkersFromBundle } from '../os/worker-bundle';
import { startTestCluster } from './test-cluster';

/*
 * `npm run test:node`: every *.test.ts under lib/, db/, app/ and components/, run by Node's own test
 * runner against a real PostgreSQL: DATABASE_URL when set, otherwise a fresh embedded cluster that
 * is removed afterwards.
 */

const TEST_ROOTS = ['lib', 'db', 'app', 'components'];

async function findTests(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found = await Promise.all(
    entries.map(async (entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return findTests(full);
      return entry.name.endsWith('.test.ts') ? [full] : [];
    }),
  );
  return found.flat().sort();
}

async function main(): Promise<number> {
  const files = (await Promise.all(TEST_ROOTS.map(findTests))).flat();
  const filter = process.argv.slice(2);
  const selected = filter.length ? files.filter((file) => filter.some((f) => file.includes(f))) : files;

  const cluster = process.env.DATABASE_URL ? undefined : await startTestCluster('tests');
  const url = process.env.DATABASE_URL ?? (cluster?.url as string);
  console.log(cluster ? `tests use an embedded PostgreSQL on port ${cluster.port}` : 'tests use DATABASE_URL');
  try {
    await migrate(url);
    // Workers connect as the worker role: it needs its password before any worker starts.
    const workerPassword = await ensureWorkerPassword(url);
    const localPassword = await ensureLocalWorkerPassword(url);
    const child = spawn(
      process.execPath,
      // One file at a time: several drive the same labs' real worker processes.
      [
        '--conditions=react-server',
        '--import',
        'tsx',
        '--test',
        '--test-concurrency=1',
        '--test-reporter=spec',
        ...selected,
      ],
      {
        stdio: 'inherit',
        env: {
          ...process.env,
          DATABASE_URL: url,
          FENCING_LAB_WORKER_PASSWORD: workerPassword,
          FENCING_LAB_LOCAL_WORKER_PASSWORD: localPassword,
        },
      },
    );
    const stop = () => child.kill('SIGTERM');
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  } finally {
    await cluster?.dispose();
  }
}

// The workers this command's supervisors start load a bundle, not the TypeScript (lib/os/worker-bundle.ts).
await startWorkersFromBundle(PROJECT_ROOT);
process.exitCode = await main();
