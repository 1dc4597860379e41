import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { localWorkerRoleName } from '../../db/roles';
import { spawnLauncher, watchLauncher } from '../testing/app-process';
import { machineAddress, type OtherHost, startOtherHost } from '../testing/other-host';
import { waitFor } from '../testing/wait';
import { freePort } from './ports';

/*
 * `HOST=0.0.0.0 npm start` for a room: the launcher says where the room's workers reach PostgreSQL,
 * and a person's worker line (issued as a lab page issues it: fl_issue_worker_line) gets in from
 * another host, while the owner's role, the local worker role or any other is refused by
 * pg_hba.conf. Without HOST, PostgreSQL listens on loopback only. Both on one data directory, HOST
 * changing between starts, as a trainer would.
 */

const READY_TIMEOUT_MS = 240_000;
// The launcher's database is named fencing_lab (lib/launcher/embedded-postgres.ts).
const LOCAL_ROLE = localWorkerRoleName('fencing_lab');
const WORKER_HOST = /their workers reach PostgreSQL at (\S+) /;
let dataDir: string;
let port: number;
let otherHost: OtherHost | undefined;
const groups = new Set<number>();
const launchers = new Set<ChildProcess>();

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-remote-'));
  await chmod(dataDir, 0o755);
  port = await freePort();
  otherHost = await startOtherHost();
});
after(async () => {
  for (const launcher of launchers) launcher.kill('SIGKILL'); // only should the test fail half-way
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await otherHost?.dispose();
  // A server just killed may still be writing its last files for a moment.
  await rm(dataDir, { recursive: true, force: true, maxRetries: 10 });
});

type Run = { child: ChildProcess; output: () => string };

async function start(extraEnv: Record<string, string>): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), FENCING_LAB_DATA_DIR: dataDir, ...extraEnv };
  for (const name of ['DATABASE_URL', 'HOST']) {
    if (!(name in extraEnv)) delete env[name];
  }
  const child = spawnLauncher(env);
  launchers.add(child);
  const { output, ready } = watchLauncher(child, READY_TIMEOUT_MS);
  await ready;
  for (const file of ['launcher.json', 'pg.owner.json']) {
    const state = JSON.parse(await readFile(path.join(dataDir, file), 'utf8'));
    groups.add(state.nextPid ?? state.postmasterPid);
  }
  return { child, output };
}

async function stop(run: Run): Promise<void> {
  const exited = new Promise<number | null>((resolve) => run.child.once('exit', (code) => resolve(code)));
  run.child.kill('SIGINT');
  assert.equal(await exited, 0, run.output());
}

/** The address the launcher says the room's workers reach PostgreSQL at (it follows the "ready" line). */
async function workerHostPrinted(run: Run): Promise<string> {
  for (let waited = 0; waited < 10_000; waited += 100) {
    const match = run.output().match(WORKER_HOST);
    if (match?.[1]) return match[1];
    await sleep(100);
  }
  throw new Error(`no worker host printed:\n${run.output()}`);
}

/** A person's worker line for the fenced lab's page, issued as the page issues it, as a URL for `host`. */
async function issuedLineUrl(host: string, who: string, password: string): Promise<URL> {
  const role = await asOwner(async (client) => {
    const { rows } = await client.query<{ role: string }>(
      "SELECT fl_issue_worker_line($1, 'fenced', '192.0.2.1', $2, 4, 8) AS role",
      [who.padEnd(64, '0'), password],
    );
    return rows[0]?.role as string;
  });
  const url = new URL(await ownerUrl(host));
  url.username = role;
  url.password = encodeURIComponent(password);
  return url;
}

/** The owner's URL, as the launcher and the app use it (on loopback). */
async function ownerUrl(host = '127.0.0.1', database = 'fencing_lab'): Promise<string> {
  const owner = JSON.parse(await readFile(path.join(dataDir, 'pg.owner.json'), 'utf8')) as { port: number };
  const password = (await readFile(path.join(dataDir, 'pg.password'), 'utf8')).trim();
  return `postgres://postgres:${encodeURIComponent(password)}@${host}:${owner.port}/${database}`;
}

async function asOwner<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: await ownerUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function withUser(url: URL, user: string, password: string, database = 'fencing_lab'): string {
  const copy = new URL(url);
  copy.username = user;
  copy.password = encodeURIComponent(password);
  copy.pathname = `/${database}`;
  return copy.toString();
}

const PG_HBA_REFUSAL = /pg_hba\.conf rejects connection for host/;

test("HOST=0.0.0.0 npm start: a person's worker line works from another host, no other role does; without HOST, PostgreSQL stays on loopback", {
  timeout: READY_TIMEOUT_MS * 3,
}, async (t) => {
  const other = otherHost;
  if (!other) return t.skip('this machine has no network address and no network namespace to test from');
  t.diagnostic(`the other host: ${other.description}`);

  // For a room: the launcher names this machine's network address, and prints no password.
  const room = await start({ HOST: '0.0.0.0' });
  assert.equal(await workerHostPrinted(room), machineAddress());
  assert.match(room.output(), /each person gets a worker line of their own .* from a lab's page/);
  assert.doesNotMatch(room.output(), /--db|postgres:\/\//);
  const password = 'a-password-the-page-made-up-1';
  const workerUrl = await issuedLineUrl(machineAddress() as string, 'far', password);
  const LINE_ROLE = workerUrl.username;

  const worker = await other.connect(workerUrl.toString());
  assert.deepEqual(worker, { ok: true, user: LINE_ROLE, clientAddress: other.address });
  // The printed command itself, run there, once the trainer has opened the lab to remote workers (its
  // page's box sets this column): the worker joins the fenced lab and its writes are accepted.
  await asOwner((client) => client.query("UPDATE labs SET remote_workers_open = true WHERE id = 'fenced'"));
  const far = other.spawnNode([
    '--conditions=react-server',
    '--import',
    'tsx',
    'lib/worker/main.ts',
    '--db',
    workerUrl.toString(),
    '--lab',
    'fenced',
    '--name',
    'Far',
  ]);
  let farSaid = '';
  far.stdout?.on('data', (chunk: Buffer) => (farSaid += chunk.toString()));
  far.stderr?.on('data', (chunk: Buffer) => (farSaid += chunk.toString()));
  try {
    await waitFor(
      () =>
        asOwner(async (client) => {
          const { rows } = await client.query(
            "SELECT 1 FROM events WHERE lab = 'fenced' AND actor = 'Far' AND kind = 'write_accepted' LIMIT 1",
          );
          return rows.length > 0;
        }),
      `an accepted write of the worker run from ${other.address}`,
      { timeoutMs: 30_000, everyMs: 500 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the worker said: ${farSaid}`);
    });
  } finally {
    far.kill('SIGTERM');
  }

  // Every other role, and the worker role on another database, is refused by pg_hba.conf.
  // It may connect to the database (PUBLIC may not, since 0014): only pg_hba.conf can keep it out.
  await asOwner(async (client) => {
    await client.query(`CREATE ROLE fencing_lab_stranger LOGIN PASSWORD 'stranger-password'`);
    await client.query('GRANT CONNECT ON DATABASE fencing_lab TO fencing_lab_stranger');
  });
  const ownerPassword = decodeURIComponent(new URL(await ownerUrl()).password);
  const localPassword = await asOwner(
    async (client) => (await client.query('SELECT local_password FROM worker_credentials')).rows[0]?.local_password,
  );
  const refused = {
    owner: await other.connect(withUser(workerUrl, 'postgres', ownerPassword)),
    'another role': await other.connect(withUser(workerUrl, 'fencing_lab_stranger', 'stranger-password')),
    "the server's own workers' role": await other.connect(withUser(workerUrl, LOCAL_ROLE, localPassword)),
    'a worker line on another database': await other.connect(withUser(workerUrl, LINE_ROLE, password, 'postgres')),
  };
  for (const [who, outcome] of Object.entries(refused)) {
    assert.equal(outcome.ok, false, `${who} got in from ${other.address}`);
    assert.match(outcome.ok ? '' : outcome.message, PG_HBA_REFUSAL, who);
  }
  // On loopback, the owner and the other role still get in (the app runs as the owner).
  assert.equal((await fetch(`http://127.0.0.1:${port}/api/health`)).status, 200);
  const strangerLocally = new pg.Client({
    connectionString: withUser(new URL(await ownerUrl()), 'fencing_lab_stranger', 'stranger-password'),
  });
  await strangerLocally.connect();
  await strangerLocally.end();

  // A crashed PostgreSQL is started again with the same door: the person's line still works.
  const { postmasterPid } = JSON.parse(await readFile(path.join(dataDir, 'pg.owner.json'), 'utf8'));
  process.kill(postmasterPid, 'SIGKILL');
  for (let waited = 0; !/PostgreSQL \d+ is back on/.test(room.output()); waited += 100) {
    assert.ok(waited < 30_000, `PostgreSQL did not come back:\n${room.output()}`);
    await sleep(100);
  }
  groups.add(JSON.parse(await readFile(path.join(dataDir, 'pg.owner.json'), 'utf8')).postmasterPid);
  assert.deepEqual(await other.connect(workerUrl.toString()), {
    ok: true,
    user: LINE_ROLE,
    clientAddress: other.address,
  });
  const ownerAfterCrash = await other.connect(withUser(workerUrl, 'postgres', ownerPassword));
  assert.match(ownerAfterCrash.ok ? 'connected' : ownerAfterCrash.message, PG_HBA_REFUSAL);
  await stop(room);

  // The default, on the same data directory: PostgreSQL listens on loopback only, and lets nobody
  // in from the network even if it listened.
  const local = await start({});
  assert.doesNotMatch(local.output(), /remote workers|npm run worker/);
  // The line's URL on this start's port (another program may hold the port it had).
  const workerUrlNow = new URL(workerUrl);
  workerUrlNow.port = new URL(await ownerUrl()).port;
  const fromOther = await other.connect(workerUrlNow.toString());
  assert.equal(fromOther.ok ? 'connected' : fromOther.code, 'ECONNREFUSED', JSON.stringify(fromOther));
  const machine = machineAddress();
  if (machine) {
    const fromMachineAddress = await new pg.Client({ connectionString: await ownerUrl(machine) }).connect().then(
      () => 'connected',
      (error: NodeJS.ErrnoException) => error.code,
    );
    assert.equal(fromMachineAddress, 'ECONNREFUSED');
  }
  const { listen, networkRules } = await asOwner(async (client) => ({
    listen: (await client.query('SHOW listen_addresses')).rows[0]?.listen_addresses,
    networkRules: (
      await client.query(
        `SELECT auth_method FROM pg_hba_file_rules WHERE address IN ('0.0.0.0', '::') ORDER BY line_number`,
      )
    ).rows.map((row) => row.auth_method),
  }));
  assert.equal(listen, '127.0.0.1');
  assert.deepEqual(networkRules, ['reject', 'reject']);
  await stop(local);

  // HOST back for the room: the same person asks for their line again and gets a new password; the old one is refused.
  const again = await start({ HOST: '0.0.0.0' });
  const urlAgain = await issuedLineUrl(machineAddress() as string, 'far', 'a-second-password-from-the-page');
  assert.equal(urlAgain.username, LINE_ROLE, 'the same line');
  assert.deepEqual(await other.connect(urlAgain.toString()), {
    ok: true,
    user: LINE_ROLE,
    clientAddress: other.address,
  });
  const oldPassword = await other.connect(withUser(urlAgain, LINE_ROLE, password));
  assert.match(oldPassword.ok ? 'connected' : oldPassword.message, /password authentication failed/);
  await stop(again);
});
