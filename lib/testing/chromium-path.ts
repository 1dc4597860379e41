import { existsSync } from 'node:fs';

/** Debian's `chromium-headless-shell`: the headless build of Chromium that Playwright itself runs headless tests in. */
export const HEADLESS_SHELL_PATH = '/usr/bin/chromium-headless-shell';
/** Debian's `chromium`: the whole browser, in its new headless mode when driven headless. */
export const SYSTEM_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The Chromium that Playwright and the benchmarks drive, read in this one place: CHROMIUM_PATH, else
 * the headless shell when it is installed (`.ci/run` installs it), else the system's Chromium. The
 * shell is the same Blink, V8 and compositor without the browser around them: on this 2-CPU machine
 * the same e2e specs took about 5 to 15% fewer CPU-seconds in it (docs/testing.md).
 */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  return existsSync(HEADLESS_SHELL_PATH) ? HEADLESS_SHELL_PATH : SYSTEM_CHROMIUM_PATH;
}
