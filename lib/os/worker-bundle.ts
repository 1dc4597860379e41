import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WORKER_BUNDLE_ENV } from './worker-bundle-env';

/*
 * The worker program (lib/worker/main.ts and its listener thread) as two plain JavaScript files, so
 * that a server's worker starts without tsx compiling it again in every process: measured on this
 * 2-CPU machine, a start took 1.1 s of CPU through tsx and 0.33 s from the bundle (`--help`, three
 * runs each), and a class or a test run starts hundreds. Made by esbuild (which tsx already uses) in
 * about 0.3 s, by the command that starts the servers or the tests (the launcher's `npm start`,
 * `npm test`'s suites, bench, soak, scenarios), never by the Next server itself. The packages stay
 * outside the bundle: they load from node_modules as before. `npm run worker` (a worker started by
 * hand, on any machine) still runs the TypeScript through tsx; `npm run dev` too, so an edit to the
 * worker takes effect at its next start.
 *
 * The files go to a directory named by their content under node_modules/.cache, so that two commands
 * bundling at once, or an old server still running an older bundle, never meet a half-written or
 * changed file.
 */

export type WorkerBundle = { dir: string; main: string };

/** Bundles the worker under `root` (the project), or reuses a bundle of the same content. */
export async function bundleWorker(root: string): Promise<WorkerBundle> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: root,
    // main.ts starts its listener thread from './listener-entry.mjs' beside it: the bundle keeps that name.
    entryPoints: { main: 'lib/worker/main.ts', 'listener-entry': 'lib/worker/listener.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['react-server'],
    packages: 'external',
    outdir: 'out',
    outExtension: { '.js': '.mjs' },
    write: false,
    logLevel: 'silent',
  });
  const hash = createHash('sha256');
  for (const file of result.outputFiles) hash.update(file.path).update(file.contents);
  const dir = path.join(root, 'node_modules', '.cache', 'fencing-lab', `worker-${hash.digest('hex').slice(0, 16)}`);
  const main = path.join(dir, 'main.mjs');
  if (!existsSync(main)) {
    const temporary = `${dir}.${process.pid}.tmp`;
    await rm(temporary, { recursive: true, force: true });
    await mkdir(temporary, { recursive: true });
    for (const file of result.outputFiles) {
      await writeFile(path.join(temporary, path.basename(file.path)), file.contents);
    }
    await rename(temporary, dir).catch(async (error: NodeJS.ErrnoException) => {
      // Another command wrote the same bundle first: theirs is this one, byte for byte.
      await rm(temporary, { recursive: true, force: true });
      if (!existsSync(main)) throw error;
    });
  }
  return { dir, main };
}

/**
 * Bundles the worker and names the bundle in this process's environment, so that the servers and
 * tests it starts, and its own supervisors, start workers from it. A failure to bundle is said and
 * not fatal: workers then start through tsx as before.
 */
export async function startWorkersFromBundle(root: string, say: (line: string) => void = console.log): Promise<void> {
  if (process.env[WORKER_BUNDLE_ENV]) return;
  try {
    process.env[WORKER_BUNDLE_ENV] = (await bundleWorker(root)).dir;
  } catch (error) {
    say(`workers start through tsx (the worker could not be bundled: ${(error as Error).message})`);
  }
}
