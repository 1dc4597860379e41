import { type CommandLineRun, runCommandLine } from './command-line';

export type ScenarioRun = CommandLineRun;

/** Runs `npm run scenario -- …` as a user would (the same node command the npm script execs). */
export function runScenario(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<ScenarioRun> {
  return runCommandLine('lib/scenario/main.ts', args, { env, until: 'exit' });
}
