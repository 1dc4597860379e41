import type { Page } from '@playwright/test';
import { expect } from './fixtures';

/**
 * A person's own worker line, as they get it: on the lab's page (open to remote workers, or their
 * private lab), "Run a worker from your own machine in this lab" → "Get my worker line"; returns the
 * `--db` URL of the command it shows.
 */
export async function workerLineFromPage(page: Page, lab: string): Promise<string> {
  await page.getByText('Run a worker from your own machine in this lab').click();
  await page.getByRole('button', { name: 'Get my worker line' }).click();
  const command = page.getByTestId('worker-line-command');
  await expect(command).toContainText(
    new RegExp(
      `npm run worker -- --db postgres://fencing_line_\\w+:\\S+ --lab ${lab}( --join-key \\S+)? --name <your name>`,
    ),
  );
  return /--db (\S+)/.exec((await command.textContent()) ?? '')?.[1] as string;
}
