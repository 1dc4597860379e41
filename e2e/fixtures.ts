import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test as base, expect } from '@playwright/test';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { E2E_DATA_DIR, E2E_TRAINER_KEY } from '../playwright.config';
import { LabPage } from './pages/lab-page';

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
    // The trainer link, asked for by the page's own request context, which keeps its cookies in the
    // browser's: the session's cookie, without loading the home page the link leads to (every test
    // opens the page it needs first; the home page's load took 1 to 2 s of every test).
    const unlocked = await page.request.get(`/unlock?key=${encodeURIComponent(E2E_TRAINER_KEY)}`, { maxRedirects: 0 });
    expect(unlocked.status(), 'the trainer link answers with a redirect').toBe(303);
    expect(unlocked.headers().location, 'the trainer key is right').toBe('/');
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

export { expect };
