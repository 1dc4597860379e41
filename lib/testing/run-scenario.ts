import { spawn } from 'node:child_process';

export type ScenarioRun = { code: number | null; stdout: string; stderr: string };

/** Runs `npm run scenario -- …` as a user would (the same node command the npm script execs). */
export function runScenario(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<ScenarioRun> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--conditions=react-server', '--import', 'tsx', 'lib/scenario/main.ts', ...args],
      { env },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
