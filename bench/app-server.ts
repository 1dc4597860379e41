import { startAppProcess } from '../lib/testing/app-process';

/** The app as `npm start` runs it, on a data directory and port of its own, for the browser benchmarks. */
export async function startApp(
  dataDir: string,
  extraEnv: Record<string, string> = {},
): Promise<{ baseUrl: string; databaseUrl: string; stop: () => Promise<void> }> {
  return startAppProcess({ dataDir, env: extraEnv });
}
