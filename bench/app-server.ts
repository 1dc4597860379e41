import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/launcher/paths';
import { freePort } from '../lib/launcher/ports';

/** The app as `npm start` runs it, on a data directory and port of its own, for the browser benchmarks. */
export async function startApp(
  dataDir: string,
  extraEnv: Record<string, string> = {},
): Promise<{ baseUrl: string; databaseUrl: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, PORT: String(port), FENCING_LAB_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
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
  const owner = JSON.parse(await readFile(path.join(dataDir, 'pg.owner.json'), 'utf8')) as { port: number };
  const password = (await readFile(path.join(dataDir, 'pg.password'), 'utf8')).trim();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    databaseUrl: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${owner.port}/fencing_lab`,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGINT');
      }),
  };
}
