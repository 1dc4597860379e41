import { chromium } from '@playwright/test';

/** The Chromium the benchmarks drive: CHROMIUM_PATH, or the system's. */
export function openBrowser(args: string[] = []) {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args });
}
