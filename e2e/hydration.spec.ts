import { expect, test } from '@playwright/test';

/*
 * A lab's page hydrates what the server rendered, also when its own code arrives late (a slow network, a busy
 * CPU): Next's start-up chunks load at once, every other chunk is held, so React starts hydrating before the
 * page's client modules are in. The layout once put a value of a 'use client' module into <head>; React then
 * resumed <body> inside <head> (error #418) in about 4 loads of 10 (react/react#37551).
 */
const PAGES = ['/labs/fenced/walkthrough', '/labs/no-fencing/walkthrough', '/labs/fenced'];
const LOADS_PER_PAGE = 3;
const HOLD_MS = 1_000;

for (const path of PAGES) {
  test(`${path} hydrates without an error when its chunks arrive late`, async ({ browser, request }) => {
    const html = await (await request.get(path)).text();
    // The chunks Next starts with, as its bootstrap script names them.
    const startup = JSON.parse(html.match(/"otherChunks":(\[[^\]]*\])/)?.[1] ?? '[]') as string[];
    expect(startup.length).toBeGreaterThan(0);
    const now = new Set(startup.map((chunk) => `/_next/${chunk}`));
    for (let load = 0; load < LOADS_PER_PAGE; load++) {
      // A fresh context each time: nothing comes from the cache of the load before.
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.route(/\/_next\/static\/chunks\/.+\.js$/, async (route) => {
        const file = new URL(route.request().url()).pathname;
        if (!now.has(file) && !file.includes('/turbopack-')) await new Promise((done) => setTimeout(done, HOLD_MS));
        await route.continue();
      });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(path);
      // The feed connects from an effect: the page has hydrated (or rendered again after a mismatch).
      await expect(page.getByTestId('room-status')).toContainText('Live');
      expect(errors, `load ${load + 1} of ${path}`).toEqual([]);
      await context.close();
    }
  });
}
