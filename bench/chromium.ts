import { chromium } from '@playwright/test';
import { chromiumPath } from '../lib/testing/chromium-path';

/** The Chromium the benchmarks drive: the e2e tests' (lib/testing/chromium-path.ts). */
export function openBrowser(args: string[] = []) {
  return chromium.launch({ executablePath: chromiumPath(), args });
}
