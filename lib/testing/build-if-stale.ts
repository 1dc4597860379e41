import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildIsStale, recordBuild, sourceFingerprint } from '../launcher/build-freshness';
import { PROJECT_ROOT } from '../launcher/paths';

/*
 * The production build, made once before the suites that start the app run side by side (npm test):
 * e2e's `npm start`, the launcher tests, bench and soak each build when the build is stale, and two
 * builds into one .next at once, or a build under a running server, would break each other. Made and
 * recorded as the launcher makes it (lib/launcher/main.ts), so every later start finds it fresh.
 */

const NEXT_BIN = path.join(PROJECT_ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');

async function main(): Promise<number> {
  const sources = await sourceFingerprint(PROJECT_ROOT);
  if (!(await buildIsStale(PROJECT_ROOT, sources))) {
    console.log('build: the production build is fresh');
    return 0;
  }
  const child = spawn(process.execPath, [NEXT_BIN, 'build'], {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  if (code === 0) await recordBuild(PROJECT_ROOT, sources);
  return code;
}

process.exitCode = await main();
