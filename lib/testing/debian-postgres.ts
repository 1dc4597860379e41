import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../launcher/ports';
import { waitForExit } from '../os/processes';
import { waitFor } from './wait';

/*
 * A PostgreSQL server that is not the app's own, for the test of an app started with DATABASE_URL:
 * Debian's PostgreSQL 15 binaries (on these machines for tests, never something the product needs),
 * a cluster in a temporary directory, a fixed port, so that the test can kill it and start it again
 * where the app's DATABASE_URL points. As root it runs as the `postgres` OS user.
 */

const run = promisify(execFile);
const DEBIAN_PG_BIN = process.env.FENCING_LAB_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const READY_TIMEOUT_MS = 30_000;

export type ExternalPostgres = {
  url: string;
  postmasterPid(): number;
  /** kill -9 of the postmaster, as a crash would. */
  crash(): Promise<void>;
  /** Starts it again on the same directory and port. */
  start(): Promise<void>;
  dispose(): Promise<void>;
};

export function debianPostgresAvailable(): boolean {
  return existsSync(path.join(DEBIAN_PG_BIN, 'postgres')) && existsSync(path.join(DEBIAN_PG_BIN, 'initdb'));
}

export async function startExternalPostgres(): Promise<ExternalPostgres> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-external-pg-'));
  await chmod(dir, 0o755);
  const dataDir = path.join(dir, 'data');
  const ids = await postgresUserIds();
  if (ids.uid !== undefined && ids.gid !== undefined) await chown(dir, ids.uid, ids.gid);
  await run(path.join(DEBIAN_PG_BIN, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8'], {
    ...ids,
    cwd: dir,
  });
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let server: ChildProcess | undefined;

  const start = async () => {
    for (let attempt = 1; ; attempt++) {
      server = spawn(
        path.join(DEBIAN_PG_BIN, 'postgres'),
        ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
        { ...ids, cwd: dir, detached: true, stdio: 'ignore' },
      );
      const exited = new Promise<void>((resolve) => server?.once('exit', () => resolve()));
      const ready = await Promise.race([untilAccepting(url), exited.then(() => false)]);
      if (ready) return;
      // Backends of a killed server can hold its shared memory for a moment: try again.
      if (attempt >= 20) throw new Error(`PostgreSQL 15 did not start on ${dataDir}`);
      await sleep(250);
    }
  };
  await start();
  return {
    url,
    postmasterPid: () => server?.pid as number,
    crash: async () => {
      const pid = server?.pid as number;
      process.kill(pid, 'SIGKILL');
      await waitForExit(pid, 5_000);
    },
    start,
    dispose: async () => {
      const pid = server?.pid;
      if (pid !== undefined && server?.exitCode === null && server.signalCode === null) {
        process.kill(pid, 'SIGINT');
        await waitForExit(pid, 10_000);
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** True once the server accepts a connection; false if it does not within READY_TIMEOUT_MS. */
function untilAccepting(url: string): Promise<boolean> {
  const accepts = async () => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  return waitFor(accepts, 'the Debian PostgreSQL to accept connections', {
    timeoutMs: READY_TIMEOUT_MS,
    everyMs: 100,
  }).catch(() => false);
}

async function postgresUserIds(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const entry = (await readFile('/etc/passwd', 'utf8')).split('\n').find((line) => line.startsWith('postgres:'));
  const [, , uid, gid] = entry?.split(':') ?? [];
  if (!uid || !gid) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL 15 as');
  return { uid: Number(uid), gid: Number(gid) };
}
