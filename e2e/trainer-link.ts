import { expect, type Page } from '@playwright/test';

/**
 * Enters a trainer key as the trainer link does (/unlock?key=…), asked for by the page's own request
 * context, which keeps its cookies in the browser's: the session's cookie, without loading the home
 * page the link leads to (its load took 1 to 3 s, and the test opens the page it needs next anyway).
 */
export async function enterTrainerKey(page: Page, key: string): Promise<void> {
  // Connection: close, so that no socket of it is kept for the test's next request: Playwright's request
  // context reuses a kept socket past the server's 5 s keep-alive, and one the server has just closed
  // answers that request with ECONNRESET (microsoft/playwright#42701; seen in session.spec.ts under load).
  const unlocked = await page.request.get(`/unlock?key=${encodeURIComponent(key)}`, {
    maxRedirects: 0,
    headers: { connection: 'close' },
  });
  expect(unlocked.status(), 'the trainer link answers with a redirect').toBe(303);
  expect(unlocked.headers().location, 'the trainer key is right').toBe('/');
}
