import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pythonWithPsycopg } from '../lib/testing/python';
import { waitFor } from '../lib/testing/wait';
import { expect, test } from './fixtures';
import { readLabEvents, readLabState } from './lab-state';
import { LabPage, WORKER_STEP_TIMEOUT } from './pages/lab-page';
import { PresenterPage } from './pages/presenter-page';
import { takeBackWorkerLine } from './worker-line';

/*
 * Issue 36's Done-when, end to end: a trainee with nothing but Python on a laptop joins the trainer's
 * fenced lab with a twenty-line client, is frozen by the trainer from the projector, and watches their
 * own late write refused on the room's timeline. The trainee's browser (no trainer key) gets their
 * worker line from the page, and saves runner.py and minimal.py from its links into a folder of
 * their own (no checkout); the Python form of its command is run there as written, as a shell would
 * run it (only "<your name>" and the program's name filled in), so a real runner.py lane joins the
 * shared lab. The trainer selects that lane on the
 * presenter by the number the strip shows, W freezes it before its next write, our B takes over and
 * writes, R wakes it, and its write with the old token is refused: on the presenter, on the trainee's
 * own page, and in the database.
 */

const timeout = WORKER_STEP_TIMEOUT;
const NAME = 'Ada';
/** SIGTERM's grace before SIGKILL: the runner stops its program (SIGTERM, then SIGKILL after 3 s) and records it. */
const STOP_GRACE_MS = 10_000;

type Proc = { pid: number; pgrp: number; state: string; args: string[] };

/** Every process on this machine now, as /proc has it (one gone while read is left out). */
function processes(): Proc[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const [state = '?', , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return [{ pid: Number(pid), pgrp: Number(pgrp), state, args }];
      } catch {
        return []; // gone between the listing and the read: not there any more
      }
    });
}

/** The processes with `marker` as a word of their command line: the runner (it names the program after its --) and the program. */
const processesWith = (marker: string) => processes().filter((p) => p.args.includes(marker));

/** The state letters (T: stopped) of every process of the program's group: the marked process that is not runner.py. */
function programGroupStates(marker: string): string[] {
  const program = processesWith(marker).find((p) => !p.args.some((arg) => arg.endsWith('runner.py')));
  return program === undefined ? [] : processes().flatMap((p) => (p.pgrp === program.pgrp ? [p.state] : []));
}

type Shell = { output(): string; stop(): Promise<void> };

/**
 * `command` run by /bin/sh as a person's terminal runs it, in a process group of its own. Dash does
 * not exec the last command: the shell and the runner share the group, so stop() waits for the
 * group to empty, not for the shell. The program runs in a group of the runner's making, which the
 * runner ends (or, the runner killed, its keeper).
 */
function runInShell(command: string, cwd: string): Shell {
  const child = spawn('/bin/sh', ['-c', command], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (chunk: Buffer) => {
    out += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const group = child.pid;
  const alive = () => group !== undefined && processes().some((p) => p.pgrp === group);
  const signal = (name: NodeJS.Signals) => {
    try {
      if (group !== undefined) process.kill(-group, name);
    } catch {
      // The group is gone already: nothing left to signal.
    }
  };
  const emptied = (timeoutMs: number) =>
    waitFor(() => !alive(), `the shell's process group ${group} to end`, { timeoutMs, everyMs: 100 });
  return {
    output: () => out,
    stop: async () => {
      if (!alive()) return;
      // As a person's Ctrl-C or kill: the runner stops its program and records its stop. One that does
      // not end in its grace is killed outright, and then must be gone.
      signal('SIGTERM');
      await emptied(STOP_GRACE_MS).catch(async () => {
        // Not ended in its grace: killed outright (its keeper then kills the program's group).
        signal('SIGKILL');
        await emptied(5_000);
      });
    },
  };
}

test("a trainee's own Python client joins the trainer's fenced lab, is frozen from the presenter, and its late write is refused", async ({
  page,
  lab,
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const fenced = lab('fenced'); // the fixture resets the lab when the test ends
  await fenced.gotoFreePlay();
  await fenced.reset();
  // The trainer lets remote workers into the shared lab (off by default).
  await fenced.page.getByTestId('remote-workers-open').check();
  await expect(fenced.page.getByTestId('remote-workers-open')).toBeChecked();
  await expect(fenced.page.getByTestId('remote-workers-open')).toBeEnabled(); // the server has it

  const trainee = await browser.newContext(); // no trainer key: a trainee watching the room's lab
  // A word only this run's processes carry on their command line: after the run, none may be left.
  const marker = `your-client-shared-${process.pid}-${Date.now()}`;
  let runner: Shell | undefined;
  let line: string | undefined;
  // The trainee's folder for their client: nothing of the project in it.
  const laptop = mkdtempSync(path.join(os.tmpdir(), 'fencing-lab-trainee-'));
  try {
    const traineeLab = new LabPage(await trainee.newPage(), 'fenced');
    await traineeLab.gotoFreePlay();
    await traineeLab.page.getByText('Run a worker from your own machine in this lab').click();
    await traineeLab.page.getByRole('button', { name: 'Get my worker line' }).click();
    // With Python alone: the runner saved beside their program, their own name in place of "<your name>".
    const shown = traineeLab.page.getByTestId('worker-line-python-command');
    await expect(shown).toHaveText(
      /^python3 runner\.py --db postgres:\/\/fencing_line_\S+ --lab fenced --name <your name> -- python3 my_client\.py$/,
    );
    line = /postgres:\/\/(fencing_line_\w+):/.exec((await shown.textContent()) ?? '')?.[1];
    // Saved from the page's links, as the trainee's browser saves them: the room serves the files.
    for (const [testId, file] of [
      ['save-runner', 'runner.py'],
      ['save-minimal', 'minimal.py'],
    ] as const) {
      const saved = traineeLab.page.waitForEvent('download');
      await traineeLab.page.getByTestId(testId).click();
      const download = await saved;
      expect(download.suggestedFilename()).toBe(file);
      await download.saveAs(path.join(laptop, file));
    }
    const python = pythonWithPsycopg() ?? 'python3'; // the python3 that has psycopg, as on the trainee's laptop
    const command = ((await shown.textContent()) ?? '')
      .replace(/^python3 runner\.py /, `${python} runner.py `)
      .replace('--name <your name>', `--name ${NAME}`)
      .replace(/ -- python3 my_client\.py$/, ` -- ${python} minimal.py ${marker}`);
    runner = runInShell(command, laptop);
    const run = runner;

    // The trainee's lane joins the room's lab, takes the lease and writes: on their own page first.
    await expect(traineeLab.writeMark(NAME, 'accepted').first()).toBeVisible({ timeout });
    expect(run.output()).toContain(`${NAME} joined fenced and runs`);
    // The trainer's page: a remote lane that runs its own client, holding the lease.
    await expect(fenced.worker(NAME)).toHaveAccessibleName(new RegExp(`^${NAME} remote`), { timeout });
    const tokenA = await fenced.waitForLeaseHolder(NAME);
    // Our B, started by the trainer, waits for the lease the trainee's client holds and renews.
    await fenced.startWorker('B', 2);

    const presenter = new PresenterPage(page, 'fenced');
    await presenter.gotoPresenter();
    await expect(presenter.driveStatus).toHaveText('Presenting: you drive');
    await expect(presenter.stripPhase(NAME)).toHaveText(/runs its own client/, { timeout });
    await expect(presenter.stripPhase('B')).toHaveText(/waiting for the lease/, { timeout });
    // The trainer selects the lane by the number the strip shows beside it.
    const key = await presenter.stripWorker(NAME).getAttribute('aria-keyshortcuts');
    expect(key).toMatch(/^[1-8]$/);
    await page.keyboard.press(key as string);
    await expect(presenter.stripWorker(NAME)).toHaveAttribute('aria-pressed', 'true');

    await page.keyboard.press('w');
    await expect(presenter.commandNotice).toHaveText(
      `✓ ${NAME} will freeze between its lease check and its next write.`,
      { timeout },
    );
    await expect(presenter.stripPhase(NAME)).toHaveText(/^‖ paused \(frozen\)/, { timeout });
    await expect(presenter.markTitled(`${NAME} frozen in its critical window`)).toBeVisible({ timeout });
    // A real freeze: every process of the trainee's program is stopped (SIGSTOP to its group).
    await expect
      .poll(() => [...new Set(programGroupStates(marker))], {
        timeout,
        message: `${NAME}'s program stopped, every process of its group`,
      })
      .toEqual(['T']);

    // Frozen until resumed: its 2 s lease runs out, B takes over with a newer token and writes.
    await expect(presenter.stripPhase('B')).toHaveText(/holds the lease · token \d+/, { timeout });
    const tokenB = Number(/token (\d+)/.exec((await presenter.stripPhase('B').textContent()) ?? '')?.[1]);
    expect(tokenB).toBeGreaterThan(tokenA);
    await expect(presenter.writeMark('B', 'accepted', { token: tokenB }).first()).toBeVisible({ timeout });
    await expect(presenter.stripPhase(NAME)).toHaveText(/^‖ paused \(frozen\)/);

    // R wakes it: the write it had decided on goes out with its old token, and the row refuses it.
    await page.keyboard.press('r');
    await expect(presenter.commandNotice).toHaveText(`✓ ${NAME} resumed.`, { timeout });
    // Exactly one refused write, with the token it froze with: the one it held when frozen (the lease
    // table's, or a renewal's since), older than B's; the row then holds B's.
    const rejected = presenter.writeMark(NAME, 'rejected');
    await expect(rejected).toHaveCount(1, { timeout });
    await expect(rejected).toHaveAccessibleName(new RegExp(`the row holds token ${tokenB}$`));
    const staleToken = Number(
      / with token (\d+): rejected/.exec((await rejected.getAttribute('aria-label')) ?? '')?.[1],
    );
    expect(staleToken).toBeGreaterThanOrEqual(tokenA);
    expect(staleToken).toBeLessThan(tokenB);
    // The row keeps B's value (the tables open on request, below the timeline).
    await page.getByText('The row and the lease, as tables').click();
    await expect(presenter.rowValue()).toHaveText(/^B-\d+$/);
    // The trainee watches the same refusal on their own page.
    await expect(traineeLab.writeMark(NAME, 'rejected', { token: staleToken })).toHaveCount(1, { timeout });
    // The client was told: it printed the refusal, in its own words.
    await expect
      .poll(() => run.output(), { timeout })
      .toContain(`my write with token ${staleToken} was refused: I lost the lease`);

    // Held to the database: the write it sent on waking carried the token it froze with and was
    // refused, and the row keeps B's last write.
    const events = await readLabEvents('fenced');
    const froze = events.findLast((e) => e.actor === NAME && e.kind === 'pause_started');
    expect(froze?.detail.trigger).toBe('critical-window');
    expect(froze?.token).toBe(staleToken);
    const late = events.find((e) => e.id > (froze?.id ?? 0) && e.actor === NAME && e.kind.startsWith('write_'));
    expect(late).toMatchObject({ kind: 'write_rejected', token: staleToken });
    const { row } = await readLabState(baseURL as string, 'fenced');
    expect(row?.value).toMatch(/^B-\d+$/);
    expect(row?.lastToken).toBeGreaterThanOrEqual(tokenB);
    expect(events.findLast((e) => e.kind === 'write_accepted')?.actor).toBe('B');
  } finally {
    // Each clean-up step whatever failed before it: no process of the trainee's client outlives the
    // test, its worker line is taken back (nothing else takes a shared lab's back; 8 an address), and
    // the room's lab closes its door again.
    try {
      await runner?.stop();
      rmSync(laptop, { recursive: true, force: true });
    } finally {
      try {
        await trainee.close();
        if (line) await takeBackWorkerLine(line);
      } finally {
        await fenced.gotoFreePlay();
        await fenced.page.getByTestId('remote-workers-open').uncheck();
      }
    }
  }
  await waitFor(() => processesWith(marker).length === 0, `no process of ${NAME}'s client left`, {
    timeoutMs: timeout,
  });
  await expect(fenced.page.getByTestId('remote-workers-open')).not.toBeChecked();
});
