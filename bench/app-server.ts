import { startAppProcess } from '../lib/testing/app-process';

/**
 * The app as `npm start` runs it, on a data directory and port of its own, for the browser
 * benchmarks and the tests that restart it: on a given port, and on a given DATABASE_URL instead
 * of its embedded PostgreSQL. (lib/testing/app-process.ts does the work, for the fault tests too.)
 */
export async function startApp(
  dataDir: string,
  extraEnv: Record<string, string> = {},
  options: { port?: number; databaseUrl?: string } = {},
): Promise<{ baseUrl: string; databaseUrl: string; stop: () => Promise<void> }> {
  return startAppProcess({ dataDir, env: extraEnv, ...options });
}
