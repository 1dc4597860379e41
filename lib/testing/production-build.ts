import { spawn } from 'node:child_process';
import path from 'node:path';
import { buildIsStale, recordBuild, sourceFingerprint } from '../launcher/build-freshness';
import { PROJECT_ROOT } from '../launcher/paths';

/*
 * The production build, made once before tests that start the app side by side: e2e's `npm start`,
 * the launcher tests in two database lanes, bench and soak each build when the build is stale, and
 * two builds into one .next at once ("Another next build process is already running"), or a build
 * under a running server, would break each other. Made and recorded as the launcher makes it
 * (lib/launcher/main.ts), so every later start finds it fresh.
 */

const NEXT_BIN = path.join(PROJECT_ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');

/** Builds the app when its sources changed since the last build; the build's exit code (0 when fresh). */
export async function buildIfStale(say: (line: string) => void = console.log): Promise<number> {
  const sources = await sourceFingerprint(PROJECT_ROOT);
  if (!(await buildIsStale(PROJECT_ROOT, sources))) {
    say('build: the production build is fresh');
    return 0;
  }
  say('build: the sources changed since the last production build; building it once');
  const child = spawn(process.execPath, [NEXT_BIN, 'build'], {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  if (code === 0) await recordBuild(PROJECT_ROOT, sources);
  return code;
}
