import { expect, type Page } from '@playwright/test';

/**
 * Enters a trainer key as the trainer link does (/unlock?key=…), asked for by the page's own request
 * context, which keeps its cookies in the browser's: the session's cookie, without loading the home
 * page the link leads to (its load took 1 to 3 s, and the test opens the page it needs next anyway).
 */
export async function enterTrainerKey(page: Page, key: string): Promise<void> {
  const unlocked = await page.request.get(`/unlock?key=${encodeURIComponent(key)}`, { maxRedirects: 0 });
  expect(unlocked.status(), 'the trainer link answers with a redirect').toBe(303);
  expect(unlocked.headers().location, 'the trainer key is right').toBe('/');
}
