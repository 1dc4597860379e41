import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROJECT_ROOT } from './paths';
import { freePort } from './ports';
import { isAlive } from './processes';

/*
 * `npm start` as a user runs it, on a data directory of its own and without DATABASE_URL: it
 * starts Postgres and Next, a SIGKILLed run is recovered by the next start, and Ctrl-C (SIGINT)
 * leaves no process behind. The first start may build the app, hence the long timeout.
 */

const READY_TIMEOUT_MS = 240_000;
let dataDir: string;
let port: number;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-launcher-'));
  await chmod(dataDir, 0o755);
  port = await freePort();
});
after(async () => {
  // Should the test fail half-way, leave nothing running behind it.
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await rm(dataDir, { recursive: true, force: true });
});

function startLauncher(): { child: ChildProcess; output: () => string; ready: Promise<void> } {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), FENCING_LAB_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const child = spawn(
    process.execPath,
    ['--conditions=react-server', '--import', 'tsx', 'lib/launcher/main.ts', 'start'],
    { cwd: PROJECT_ROOT, env },
  );
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time:\n${output}`)), READY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Fencing Lab is ready at')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`launcher exited early (${code}):\n${output}`));
    });
  });
  return { child, output: () => output, ready };
}

const groups = new Set<number>();

/**
 * Every live process in the process groups of the servers we saw (Postgres and Next each lead a
 * group of their own, so their backends and children are in it), or whose command line mentions
 * our data directory.
 */
async function leftovers(): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (!stat || state === 'Z') continue;
    const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    if (groups.has(Number(pgrp)) || cmdline.includes(dataDir)) found.push(`${entry} ${cmdline}`);
  }
  return found;
}

async function state(): Promise<{ nextPid: number; postmasterPid: number }> {
  const launcher = JSON.parse(await readFile(path.join(dataDir, 'launcher.json'), 'utf8'));
  const owner = JSON.parse(await readFile(path.join(dataDir, 'pg.owner.json'), 'utf8'));
  groups.add(launcher.nextPid);
  groups.add(owner.postmasterPid);
  return { nextPid: launcher.nextPid, postmasterPid: owner.postmasterPid };
}

test('npm start serves the app with its own Postgres, recovers from a killed run, and Ctrl-C leaves nothing behind', {
  timeout: READY_TIMEOUT_MS * 2,
}, async () => {
  const first = startLauncher();
  await first.ready;
  const health = await fetch(`http://127.0.0.1:${port}/api/health`);
  assert.equal(health.status, 200);
  assert.equal((await health.json()).status, 'up');
  const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
  assert.match(page, /protected_rows/);
  assert.match(page, /leases/);

  // A killed launcher leaves its children running, holding the port and the database's lock file.
  const orphans = await state();
  first.child.kill('SIGKILL');
  await sleep(300);
  assert.ok(isAlive(orphans.postmasterPid) && isAlive(orphans.nextPid), 'SIGKILL leaves orphans, as expected');

  const second = startLauncher();
  await second.ready;
  assert.match(second.output(), /stopping Next server \d+, orphaned by an earlier run/);
  assert.match(second.output(), /stopping PostgreSQL \d+, orphaned by an earlier run/);
  assert.equal((await fetch(`http://127.0.0.1:${port}/api/health`)).status, 200);
  await state();

  const exited = new Promise<number | null>((resolve) => second.child.once('exit', (code) => resolve(code)));
  second.child.kill('SIGINT');
  assert.equal(await exited, 0);
  assert.deepEqual(await leftovers(), []);
  await assert.rejects(fetch(`http://127.0.0.1:${port}/api/health`), 'nothing listens on the port any more');
});
