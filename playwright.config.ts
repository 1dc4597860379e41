import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { chromiumPath } from './lib/testing/chromium-path';

/*
 * End-to-end tests in real Chromium against `npm start` (the production build, real Postgres).
 * Chromium comes from the system (Debian's packages: lib/testing/chromium-path.ts); Playwright cannot
 * download browsers here.
 * Without DATABASE_URL the app runs its embedded Postgres in .data/e2e, apart from a developer's .data.
 * E2E_PORT and E2E_DATA_DIR choose another port and directory, so that two runs (npm test runs the
 * spec files in two halves side by side: lib/testing/run-suites.ts) each have an app, a database and
 * so shared labs of their own; feed-heals.spec.ts also takes the port after E2E_PORT. E2E_OUTPUT_DIR:
 * where the run keeps traces (Playwright empties it when it starts).
 */

const PORT = Number(process.env.E2E_PORT ?? 3210);
export const E2E_DATA_DIR = path.resolve(process.env.E2E_DATA_DIR ?? '.data/e2e');
/** The trainer key of the app under test: the `page` fixture enters it (e2e/fixtures.ts). */
/** The room's private-lab cap for the e2e app (120 by default): the flood in limits.spec.ts reaches it. */
export const E2E_MAX_PRIVATE_LABS = 30;
export const E2E_TRAINER_KEY = process.env.FENCING_LAB_TRAINER_KEY ?? 'e2e-trainer-key';

export default defineConfig({
  testDir: './e2e',
  outputDir: process.env.E2E_OUTPUT_DIR ?? 'test-results',
  fullyParallel: false,
  // A test that sets no deadline of its own: 60 s, not Playwright's 30. Several take 8 to 12 s alone, and
  // 1.5 to 2.5 times that beside another e2e half (FENCING_LAB_E2E_HALVES=2) or on a busier machine.
  timeout: 60_000,
  // An assertion that names no deadline of its own waits 15 s for its fact, not Playwright's 5: a click
  // answered by the server (a guard's place in line, a step's words) took over 5 s beside another
  // e2e half (guard-queue.spec.ts, 12-07). A fact that never comes still fails; speed goals are benchmarks.
  expect: { timeout: 15_000 },
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list'], ['html', { open: 'never' }]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    // A failed test keeps its trace (every action and assertion with its call log, the console, the
    // network, the sources), a screenshot of the page as it failed, and Playwright's error-context.md
    // (the page's accessibility tree then). Not the trace's screencast nor its DOM snapshots: recording
    // them for every test, kept or not, cost about a third of a short spec's time (the screencast) and
    // a tenth of the CPU (the snapshots) on the 2 CPUs (docs/testing.md, "Where the e2e time goes").
    // For the DOM too, run the spec again with --trace on.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: false, sources: true },
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: chromiumPath() },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 720 } } }],
  webServer: {
    command: 'npm start',
    url: `http://127.0.0.1:${PORT}/api/health`,
    reuseExistingServer: !process.env.CI,
    timeout: 240_000,
    gracefulShutdown: { signal: 'SIGTERM', timeout: 20_000 },
    env: {
      PORT: String(PORT),
      FENCING_LAB_DATA_DIR: E2E_DATA_DIR,
      FENCING_LAB_TRAINER_KEY: E2E_TRAINER_KEY,
      // Every test browser is 127.0.0.1: the per-address limit (12 an hour) would stop the suite, and
      // the flood in limits.spec.ts must reach the room's cap, kept small here. The limits themselves: db/labs.test.ts.
      FENCING_LAB_OPENS_PER_ADDRESS: '1000',
      FENCING_LAB_MAX_PRIVATE_LABS: String(E2E_MAX_PRIVATE_LABS),
      // Two jobs at a time (two per CPU by default): guard-queue.spec.ts's third guard waits in line behind two.
      FENCING_LAB_MAX_GUARD_ATTACKS: '2',
    },
    stdout: 'pipe',
  },
});
