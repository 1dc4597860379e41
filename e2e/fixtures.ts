import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test as base } from '@playwright/test';
import { E2E_DATA_DIR } from '../playwright.config';

const run = promisify(execFile);

type Fixtures = {
  /** Runs `npm run scenario -- <name> --json` against the database the app under test uses. */
  runScenario: (name: string) => Promise<Array<Record<string, unknown>>>;
};

export const test = base.extend<Fixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  runScenario: async ({}, use) => {
    await use(async (name) => {
      const { stdout } = await run(
        process.execPath,
        ['--conditions=react-server', '--import', 'tsx', 'lib/scenario/main.ts', name, '--json'],
        { env: { ...process.env, FENCING_LAB_DATA_DIR: E2E_DATA_DIR } },
      );
      return stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    });
  },
});

export { expect } from '@playwright/test';
