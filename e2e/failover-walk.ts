import { expect, type Page } from '@playwright/test';

/** A failover step's wait: a real primary and standby start, die and are promoted. */
export const FAILOVER_STEP_TIMEOUT = 30_000;

/** Runs steps `from` to `to` on the failover lab's page: each shown once run, told from its record. */
export async function runFailoverSteps(page: Page, from: number, to: number, timeout = FAILOVER_STEP_TIMEOUT) {
  const walkthrough = page.getByRole('region', { name: /^Walkthrough/ });
  for (let n = from; n <= to; n++) {
    const run = page.getByRole('button', { name: `Run step ${n}`, exact: true });
    await expect(run).toBeEnabled({ timeout });
    await run.click();
    await expect(walkthrough.getByRole('heading', { name: new RegExp(`^Step ${n}:`) })).toBeVisible({ timeout });
    await expect(walkthrough.getByText('The lab has done this step.')).toBeVisible({ timeout });
  }
}

/** Resets the room's failover lab (it asks first), which stops its pair. */
export async function resetFailoverLab(page: Page, timeout = FAILOVER_STEP_TIMEOUT) {
  await page.getByRole('button', { name: 'Reset the lab (stops the pair)' }).click();
  await page
    .getByRole('dialog', { name: 'Reset the shared lab?' })
    .getByRole('button', { name: 'Reset the lab' })
    .click();
  await expect(page.getByRole('status').filter({ hasText: 'Reset the lab: done' })).toBeVisible({ timeout });
}
