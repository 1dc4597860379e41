import { setTimeout as sleep } from 'node:timers/promises';

/*
 * The one way tests wait for something that happens in another process or connection: poll until
 * it holds, and fail with what was awaited. The limit is generous (the machine is slow and shared):
 * it only decides when a test that is going to fail gives up, never what a passing one asserts.
 * Nothing here reaches the database, so Playwright's specs may use it too; a lab's events are
 * waited for in wait-for-event.ts.
 */

export type WaitOptions = { timeoutMs?: number; everyMs?: number };

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_EVERY_MS = 25;

/** Polls `probe` until it returns something truthy, and returns that. */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  { timeoutMs = DEFAULT_TIMEOUT_MS, everyMs = DEFAULT_EVERY_MS }: WaitOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found) return found as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
