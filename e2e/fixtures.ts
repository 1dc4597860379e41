import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test as base } from '@playwright/test';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { E2E_DATA_DIR, E2E_TRAINER_KEY } from '../playwright.config';
import { LabPage } from './pages/lab-page';
import { enterTrainerKey } from './trainer-link';

const run = promisify(execFile);

type Fixtures = {
  /**
   * Runs `npm run scenario -- <name> --json` against the database the app under test uses. A broken
   * lab's story ends UNSAFE, with exit code 1: `{ unsafe: true }` expects that, and reads its lines all the same.
   */
  runScenario: (name: string, options?: { unsafe?: boolean }) => Promise<Array<Record<string, unknown>>>;
  /**
   * A lab's page object (not yet opened). Every lab a test touched is reset when the test ends, so
   * that no worker it started goes on writing into the next test.
   */
  lab: (lab: LabId) => LabPage;
};

export const test = base.extend<Fixtures>({
  /** The trainer's browser: it has entered the trainer key (the trainer link), so it drives the shared labs. */
  page: async ({ page }, use) => {
    await enterTrainerKey(page, E2E_TRAINER_KEY);
    await use(page);
  },

  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  runScenario: async ({}, use) => {
    await use(async (name, options = {}) => {
      const { stdout } = await run(
        process.execPath,
        ['--conditions=react-server', '--import', 'tsx', 'lib/scenario/main.ts', name, '--json'],
        { env: { ...process.env, FENCING_LAB_DATA_DIR: E2E_DATA_DIR } },
      ).catch((error: { code?: unknown; stdout?: string }) => {
        if (options.unsafe && error.code === 1 && error.stdout) return { stdout: error.stdout };
        throw error;
      });
      return stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    });
  },

  lab: async ({ page }, use) => {
    const touched = new Set<LabId>();
    await use((lab) => {
      touched.add(lab);
      return new LabPage(page, lab);
    });
    // Reset lab in free play: every worker of the lab stopped, its history cleared.
    for (const lab of touched) {
      const cleanup = new LabPage(page, lab);
      await cleanup.gotoFreePlay();
      await cleanup.reset();
    }
  },
});

export { expect } from '@playwright/test';
