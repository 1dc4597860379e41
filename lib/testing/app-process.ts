import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../launcher/paths';
import { freePort } from '../launcher/ports';

/**
 * The app as `npm start` runs it (the launcher, Next, and the embedded PostgreSQL unless a
 * `databaseUrl` is given), on a data directory and port of its own: for the fault tests and the
 * browser benchmarks, which crash its parts and must not disturb anyone else's server.
 */
export type AppProcess = {
  baseUrl: string;
  databaseUrl: string;
  /** Everything the launcher and Next printed so far. */
  output(): string;
  /** The current Next server's and embedded postmaster's PIDs, from the launcher's state files. */
  nextPid(): Promise<number>;
  postmasterPid(): Promise<number>;
  /** `/api/health` as "<HTTP status> <status>", or "no answer". */
  health(): Promise<string>;
  /** Ctrl-C, as a user stops it; SIGKILL of everything it started if that hangs. */
  stop(): Promise<void>;
};

const READY_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 30_000;

export async function startAppProcess(options: {
  dataDir: string;
  port?: number;
  databaseUrl?: string;
  env?: Record<string, string>;
}): Promise<AppProcess> {
  const { dataDir } = options;
  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, PORT: String(port), FENCING_LAB_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  const child = spawnLauncher(env, ['ignore', 'pipe', 'pipe']);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const launcher = watchLauncher(child, READY_TIMEOUT_MS);
  await launcher.ready;
  const output = launcher.output;

  const readJson = async (file: string) => JSON.parse(await readFile(path.join(dataDir, file), 'utf8'));
  const baseUrl = `http://127.0.0.1:${port}`;
  let databaseUrl = options.databaseUrl;
  if (!databaseUrl) {
    const owner = (await readJson('pg.owner.json')) as { port: number };
    const password = (await readFile(path.join(dataDir, 'pg.password'), 'utf8')).trim();
    databaseUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${owner.port}/fencing_lab`;
  }
  const nextPid = async () => ((await readJson('launcher.json')) as { nextPid: number }).nextPid;
  const postmasterPid = async () => ((await readJson('pg.owner.json')) as { postmasterPid: number }).postmasterPid;

  return {
    baseUrl,
    databaseUrl,
    output,
    nextPid,
    postmasterPid,
    health: () =>
      fetch(`${baseUrl}/api/health`).then(
        async (res) => `${res.status} ${((await res.json()) as { status: string }).status}`,
        () => 'no answer',
      ),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const groups = await Promise.all([nextPid().catch(() => undefined), postmasterPid().catch(() => undefined)]);
      child.kill('SIGINT');
      const stopped = await Promise.race([exited.then(() => true), sleepFor(STOP_TIMEOUT_MS).then(() => false)]);
      if (stopped) return;
      child.kill('SIGKILL');
      for (const group of groups) {
        if (group === undefined) continue;
        try {
          process.kill(-group, 'SIGKILL'); // the groups it started (Next, Postgres) and nothing else
        } catch {
          // already gone
        }
      }
    },
  };
}

function sleepFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** `npm start` (the launcher) with exactly this environment. */
export function spawnLauncher(env: NodeJS.ProcessEnv, stdio: StdioOptions = 'pipe'): ChildProcess {
  return spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', 'lib/launcher/main.ts', 'start'], {
    cwd: PROJECT_ROOT,
    env,
    stdio,
  });
}

/**
 * What a launcher prints, and a promise that resolves once it says it is ready; rejects if it exits
 * first or is not ready within `timeoutMs`, with what it printed.
 */
export function watchLauncher(child: ChildProcess, timeoutMs: number): { output: () => string; ready: Promise<void> } {
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the app was not ready in time:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Fencing Lab is ready at')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited (${code}):\n${output}`));
    });
  });
  // A launcher that exits after it was ready is not a failure of its start.
  ready.catch(() => undefined);
  return { output: () => output, ready };
}
