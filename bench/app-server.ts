import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/launcher/paths';
import { freePort } from '../lib/launcher/ports';

/**
 * The app as `npm start` runs it, on a data directory and port of its own, for the browser
 * benchmarks and the tests that restart it: on a given port, and on a given DATABASE_URL instead
 * of its embedded PostgreSQL.
 */
export async function startApp(
  dataDir: string,
  extraEnv: Record<string, string> = {},
  options: { port?: number; databaseUrl?: string } = {},
): Promise<{ baseUrl: string; databaseUrl: string; stop: () => Promise<void> }> {
  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, PORT: String(port), FENCING_LAB_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=react-server', '--import', 'tsx', 'lib/launcher/main.ts', 'start'],
    { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Fencing Lab is ready at')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the app exited (${code}):\n${output}`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    databaseUrl: options.databaseUrl ?? (await embeddedDatabaseUrl(dataDir)),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGINT');
      }),
  };
}

async function embeddedDatabaseUrl(dataDir: string): Promise<string> {
  const owner = JSON.parse(await readFile(path.join(dataDir, 'pg.owner.json'), 'utf8')) as { port: number };
  const password = (await readFile(path.join(dataDir, 'pg.password'), 'utf8')).trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${owner.port}/fencing_lab`;
}
