import type { Page } from '@playwright/test';
import pg from 'pg';
import { appDatabaseUrl } from './app-database';
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

/**
 * Takes a shared lab's worker line back, as the node tests' runner does after each file: nothing else
 * does within 10 minutes (a shared lab is never closed; a full address takes back its own idle lines
 * once 10 minutes old), and one client address holds at most 8, so a spec that issues one to a fresh
 * browser at every run would refuse its ninth run in a row against the same data directory.
 */
export async function takeBackWorkerLine(role: string): Promise<void> {
  const client = new pg.Client({ connectionString: await appDatabaseUrl() });
  await client.connect();
  try {
    const { rows } = await client.query<{ dropped: boolean }>('SELECT fl_drop_worker_line($1) AS dropped', [role]);
    expect(rows[0]?.dropped, `the worker line ${role} taken back`).toBe(true);
  } finally {
    await client.end();
  }
}
