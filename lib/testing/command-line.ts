import { spawn } from 'node:child_process';

export type CommandLineRun = { code: number | null; stdout: string; stderr: string };

/**
 * Runs one of the project's command lines as its npm script does (`node --conditions=react-server
 * --import tsx <entry> …`), and gathers what it printed and its exit code: once its output is closed,
 * or, with `until: 'exit'`, once it exits (a story's workers inherit its output and may outlive it for
 * a moment). With `timeoutMs`, a run still going then is killed (its code is then null).
 */
export function runCommandLine(
  entry: string,
  args: readonly string[],
  {
    env = process.env,
    timeoutMs,
    until = 'close',
  }: { env?: NodeJS.ProcessEnv; timeoutMs?: number; until?: 'close' | 'exit' } = {},
): Promise<CommandLineRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', entry, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on(until, (code: number | null) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
