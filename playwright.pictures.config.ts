import { defineConfig } from '@playwright/test';
import e2e from './playwright.config';

/*
 * `npm run docs:pictures`: the pictures of the real screens the docs show (lib/testing/docs-screens.ts),
 * taken in real Chromium against `npm start`, started as the e2e tests start it (playwright.config.ts:
 * E2E_PORT, E2E_DATA_DIR), in the light theme. Its one file, e2e/docs-pictures.pictures.ts, is no spec:
 * `npm run test:e2e` does not run it.
 */

export default defineConfig({
  ...e2e,
  testMatch: /\.pictures\.ts$/,
  outputDir: process.env.E2E_OUTPUT_DIR ?? 'test-results/docs-pictures',
  reporter: [['list']],
  projects: (e2e.projects ?? []).map((project) => ({
    ...project,
    use: { ...project.use, colorScheme: 'light' },
  })),
});
