import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../../db/migrate';
import { ensureLocalWorkerPassword, localWorkerRoleName, workerRoleName } from '../../db/roles';
import { parseRoomSettings } from '../model/core/room-settings';
import { identify, isSameProcess, type ProcessIdentity, terminate } from '../os/processes';
import { startWorkersFromBundle } from '../os/worker-bundle';
import { writeFileAtomically } from './atomic-file';
import { BACKEND_MEMORY_CAP_BYTES, type MemoryWatch, watchBackendMemory } from './backend-memory-watch';
import { buildIsStale, recordBuild, sourceFingerprint } from './build-freshness';
import { watchDatabase } from './database-watchdog';
import { DATABASE_NAME, type EmbeddedCluster, startEmbeddedPostgres } from './embedded-postgres';
import { dataDir, EMBEDDED_PG_PREFERRED_PORT, PROJECT_ROOT } from './paths';
import { RESTART_STABLE_MS, restartDelayMs } from './restart-backoff';
import { roomAddress } from './room-worker-line';

/*
 * `npm start` / `npm run dev`: one process that owns the database and the Next server.
 * Order on the way up: database (DATABASE_URL, or an embedded PostgreSQL in .data/pg), migrations,
 * a production build when the sources are newer than it (start only), then Next. On the way down
 * (Ctrl-C, SIGTERM, SIGHUP, or Next failing to start): Next and everything it started first, then
 * Postgres. In between, both are supervised: an embedded Postgres or a Next server that dies
 * unexpectedly is started again, with back-off (lib/launcher/restart-backoff.ts).
 */

const ROOT = PROJECT_ROOT;
const DATA_DIR = dataDir();
const STATE_FILE = path.join(DATA_DIR, 'launcher.json');
/** The embedded database's state as the launcher sees it (`/api/health` reads it: "recovering"). */
const DATABASE_STATE_FILE = path.join(DATA_DIR, 'database-state.json');
const NEXT_BIN = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
/** Stamps each request with its TCP peer: the client address per-address limits count by. */
const PEER_ADDRESS_PRELOAD = path.join(ROOT, 'lib', 'server', 'peer-address.cjs');
const NEXT_STOP_GRACE_MS = 10_000;
/** Workers record their end within 1.5 s of their server's (lib/worker/listener.ts LAST_WORDS_MS). */
const WORKERS_LAST_WORDS_MS = 2_500;
const READY_TIMEOUT_MS = 60_000;

type Mode = 'start' | 'dev';
/** PIDs for people and tests; identities for the clean-up of a killed run (a PID alone can be reused). */
type LauncherState = {
  launcherPid: number;
  nextPid: number | undefined;
  launcher?: ProcessIdentity;
  next?: ProcessIdentity;
};

const say = (line: string) => console.log(`[fencing-lab] ${line}`);

let cluster: EmbeddedCluster | undefined;
let child: ChildProcess | undefined;
let stopping = false;
let startup: Promise<void> = Promise.resolve();
let databaseWatch: { stop(): Promise<void> } | undefined;
let memoryWatch: MemoryWatch | undefined;
/** Aborted at shutdown: a restart waiting out its back-off gives up at once. */
const shuttingDown = new AbortController();

async function main(mode: Mode): Promise<void> {
  // A setting it cannot use (a trainer key too short to hold off guessing, a limit that is not a number)
  // stops the start here, before anything runs: each one named, with what it must be.
  const { settings, problems } = parseRoomSettings(process.env, { cpus: availableParallelism() });
  if (problems.length > 0) throw new Error(problems.join('\n[fencing-lab] '));
  const port = settings.port;
  // `npm start`: the workers its server starts load a bundle, not the TypeScript (dev keeps tsx, for edits).
  if (mode === 'start') await startWorkersFromBundle(ROOT, say);
  await mkdir(DATA_DIR, { recursive: true });
  // Loopback unless asked otherwise: the lab starts processes on behalf of whoever can reach it.
  const host = settings.listenHost;
  await stopOrphanedServer();
  await rm(DATABASE_STATE_FILE, { force: true });

  if (process.env.DATABASE_URL) {
    say('using the database at DATABASE_URL');
  } else {
    cluster = await startEmbeddedPostgres({
      dataDir: path.join(DATA_DIR, 'pg'),
      preferredPort: EMBEDDED_PG_PREFERRED_PORT,
      log: say,
      takeOver: true,
      // Beyond loopback, the room's workers reach it too, as people's worker lines (the worker role's members) and no other role.
      remoteWorkers: isLoopback(host)
        ? undefined
        : { listenOn: host, workerRole: workerRoleName(DATABASE_NAME), localRole: localWorkerRoleName(DATABASE_NAME) },
    });
  }
  if (stopping) return;
  if (cluster?.owned) databaseWatch = watchDatabase(cluster, { say, stateFile: DATABASE_STATE_FILE });
  const databaseUrl = process.env.DATABASE_URL ?? (cluster as EmbeddedCluster).url;
  const applied = await migrate(databaseUrl);
  say(applied.length ? `applied migrations: ${applied.join(', ')}` : 'schema is up to date');
  const localPassword = await ensureLocalWorkerPassword(databaseUrl);
  if (stopping) return;
  // The embedded cluster's backends are processes of this machine: a worker's is ended past its memory cap.
  if (cluster) {
    memoryWatch = watchBackendMemory(databaseUrl, {
      onEnded: ({ pid, bytes }) =>
        say(
          `ended a worker's database session (backend ${pid}) holding ${Math.round(bytes / 2 ** 20)} MB, past its ${BACKEND_MEMORY_CAP_BYTES / 2 ** 20} MB cap`,
        ),
    });
  }
  const room = isLoopback(host) ? undefined : roomWorkerLines(databaseUrl, host);

  // The trainer key: set by FENCING_LAB_TRAINER_KEY, or a fresh one per start. Only a browser that
  // has it drives the shared labs, whatever the address the server listens on.
  const trainerKey = settings.trainerKey ?? randomBytes(12).toString('base64url');
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    // With PORT, what the server's Host check (the request hook, proxy.ts) counts as its own names.
    HOST: host,
    NEXT_TELEMETRY_DISABLED: '1',
    FENCING_LAB_TRAINER_KEY: trainerKey,
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--require ${JSON.stringify(PEER_ADDRESS_PRELOAD)}`]
      .filter(Boolean)
      .join(' '),
    FENCING_LAB_DATABASE_STATE_FILE: DATABASE_STATE_FILE,
    // Where a person's worker line reaches PostgreSQL from their own machine (db/worker-lines.ts).
    ...(room?.host ? { FENCING_LAB_WORKER_HOST: room.host } : {}),
    FENCING_LAB_LOCAL_WORKER_PASSWORD: localPassword,
  };
  const sources = mode === 'start' ? await sourceFingerprint(ROOT) : '';
  if (mode === 'start' && (await buildIsStale(ROOT, sources))) {
    if (stopping) return;
    say('building the app (sources changed since the last build)…');
    const code = await runToEnd(await spawnNext(['build'], env));
    if (stopping) return;
    if (code !== 0) return void shutdown(`the build failed (exit ${code})`, 1);
    await recordBuild(ROOT, sources);
  }
  if (stopping) return;

  await superviseNext([mode, '--port', String(port), '--hostname', host], env, {
    host,
    port,
    trainerKey,
    room: room?.lines,
  });
}

/**
 * What to tell the trainer about remote workers, and the host their workers reach PostgreSQL by: each
 * person is issued a worker line of their own from a lab's page (db/worker-lines.ts), none is printed.
 */
function roomWorkerLines(databaseUrl: string, host: string): { lines: string[]; host?: string } {
  const reach = roomAddress(host);
  if (!reach) return { lines: ['remote workers: this machine has no network address (IPv4) to give the room'] };
  // A server taken over from another command keeps where it listens until it restarts.
  if (cluster?.listenAddresses === '127.0.0.1') {
    return { lines: ['remote workers: none can join, PostgreSQL was started by another command on loopback only'] };
  }
  // Your own server: keep its host unless it is loopback, which the room cannot reach.
  const ownHost = new URL(databaseUrl).hostname;
  const address = cluster || isLoopback(ownHost) ? reach : { address: ownHost, what: "DATABASE_URL's host" };
  return {
    host: address.address,
    lines: [
      `remote workers: each person gets a worker line of their own (a role, a password and a command) from a lab's page, under "Run a worker from your own machine": their private lab's, or a shared lab's while you let remote workers in`,
      `  their workers reach PostgreSQL at ${address.address} (${address.what})${cluster ? '' : ", if your pg_hba.conf lets the worker role's members in"}`,
    ],
  };
}

/**
 * Runs the Next server until shutdown. If it fails before it ever served, the launcher stops (a
 * build or port problem will not mend itself); once it has served, an unexpected exit starts it
 * again with back-off, and open pages reconnect to the new one.
 */
async function superviseNext(args: string[], env: NodeJS.ProcessEnv, site: Site): Promise<void> {
  let served = false;
  let attempt = 0;
  for (;;) {
    if (stopping) return;
    const startedAt = Date.now();
    const server = await spawnNext(args, env);
    const exit = new Promise<string>((resolve) =>
      server.once('exit', (code, signal) => resolve(signal ?? `code ${code}`)),
    );
    const ready = await Promise.race([
      waitForHealth(site.host, site.port, { anyAnswer: served }),
      exit.then(() => false),
    ]);
    if (ready) {
      await recordState(server); // again: Next renames itself ("next-server") once it serves
      if (served) say('the Next server is back: open pages reconnect by themselves');
      else announce(site);
      served = true;
    }
    const how = await exit;
    if (stopping) return;
    if (!served) return void shutdown(`the Next server exited (${how})`, 1);
    await endStragglers(server.pid);
    if (Date.now() - startedAt >= RESTART_STABLE_MS) attempt = 0;
    const delayMs = restartDelayMs(attempt++);
    say(`the Next server exited unexpectedly (${how}): starting it again in ${delayMs / 1000} s`);
    // Cut short by shutting down: the loop ends below.
    await sleep(delayMs, undefined, { signal: shuttingDown.signal }).catch(() => undefined);
  }
}

/**
 * What a dead Next server leaves in its process group: workers exit when their parent goes, except a
 * frozen (SIGSTOPped) one, which must be continued to notice. The group cannot belong to anyone
 * else: its id stays reserved while any member lives.
 */
async function endStragglers(groupId: number | undefined): Promise<void> {
  if (groupId === undefined) return;
  for (const signal of ['SIGCONT', 'SIGTERM'] as const) {
    try {
      process.kill(-groupId, signal);
    } catch {
      // No process left in the group: nothing to signal.
      return; // nobody left in the group
    }
  }
}

type Site = { host: string; port: number; trainerKey: string; room: string[] | undefined };

function announce(site: Site): void {
  const { host, port, trainerKey } = site;
  const base = `http://${displayHost(host)}:${port}`;
  say(`Fencing Lab is ready at ${base} (Ctrl-C stops everything)`);
  say(`trainer key: ${trainerKey}`);
  say(
    `trainer link (unlocks the controls in this browser, then opens the home page): ${base}/unlock?key=${encodeURIComponent(trainerKey)}`,
  );
  if (!isLoopback(host)) {
    say(
      `listening on ${host}: anyone who can reach this machine can watch; only browsers with the trainer key drive the shared labs`,
    );
  }
  for (const line of site.room ?? []) say(line);
}

async function spawnNext(args: string[], env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  // Its own process group, so shutdown can end Next and anything Next started, in order.
  child = spawn(process.execPath, [NEXT_BIN, ...args], { cwd: ROOT, env, stdio: 'inherit', detached: true });
  // Recorded at once (a build too), so that a start after this launcher is SIGKILLed can end it.
  await recordState(child);
  return child;
}

async function recordState(server: ChildProcess): Promise<void> {
  const state: LauncherState = {
    launcherPid: process.pid,
    nextPid: server.pid,
    launcher: identify(process.pid),
    next: server.pid === undefined ? undefined : identify(server.pid),
  };
  await writeFileAtomically(STATE_FILE, JSON.stringify(state));
}

function runToEnd(process: ChildProcess): Promise<number> {
  return new Promise((resolve) => process.once('exit', (code) => resolve(code ?? 1)));
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function displayHost(host: string): string {
  return host === '127.0.0.1' || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
}

/** Waits for a healthy app; with `anyAnswer`, for a server that answers at all (the database may be down). */
async function waitForHealth(host: string, port: number, { anyAnswer = false } = {}): Promise<boolean> {
  const probeHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!stopping && Date.now() < deadline) {
    const ok = await fetch(`http://${probeHost}:${port}/api/health`).then(
      (res) => res.ok || anyAnswer,
      () => false,
    );
    if (ok) return true;
    await sleep(200);
  }
  return false;
}

async function shutdown(reason: string, exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  shuttingDown.abort();
  say(`stopping: ${reason}`);
  await stopChild();
  // Start-up checks `stopping` after every step: let it get there, so that a Postgres it was still
  // starting is known (and stopped below) and no Next is spawned after this point.
  // Its failure was said where it happened; stopping goes on either way.
  await startup.catch(() => undefined);
  await stopChild();
  await databaseWatch?.stop();
  await memoryWatch?.stop();
  await rm(STATE_FILE, { force: true });
  await rm(DATABASE_STATE_FILE, { force: true });
  if (cluster) {
    await cluster.stop();
    if (cluster.owned) say('PostgreSQL stopped');
  }
  process.exit(exitCode);
}

async function stopChild(): Promise<void> {
  const pid = child?.pid;
  if (pid !== undefined && child?.exitCode === null && child.signalCode === null) {
    // Next alone first: the workers it started see their lifeline end and record their own end
    // (lib/worker/listener.ts), so that every lane ends before we exit; then what is left of its group.
    await terminate(pid, {
      signal: 'SIGTERM',
      graceMs: NEXT_STOP_GRACE_MS,
      group: true,
      leaderFirst: true,
      stragglerGraceMs: WORKERS_LAST_WORDS_MS,
    });
  }
}

/** A launcher killed with SIGKILL leaves its Next server running; end it before starting anew. */
async function stopOrphanedServer(): Promise<void> {
  const state = await readFile(STATE_FILE, 'utf8').then(
    (text) => JSON.parse(text) as LauncherState,
    () => undefined,
  );
  if (!state) return;
  // Only the very processes recorded (same start time, command and directory): after a reboot or
  // a PID wrap, the same number belongs to a stranger, who is left alone.
  if (isSameProcess(state.launcher)) {
    throw new Error(`Fencing Lab is already running (process ${state.launcherPid}); stop it first`);
  }
  if (isSameProcess(state.next)) {
    say(`stopping Next server ${state.next.pid}, orphaned by an earlier run that was killed`);
    await terminate(state.next.pid, { signal: 'SIGTERM', graceMs: NEXT_STOP_GRACE_MS, group: true });
  }
  await rm(STATE_FILE, { force: true });
}

// Whoever reads our output may go away first (a closed terminal, a dead pipe): a failed write must
// never stop the shutdown half-way and leave Next or Postgres running.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void shutdown(`received ${signal}`, 0));
}

const mode: Mode = process.argv[2] === 'dev' ? 'dev' : 'start';
startup = main(mode);
startup.catch((error: unknown) => {
  console.error(`[fencing-lab] ${error instanceof Error ? error.message : String(error)}`);
  void shutdown('start-up failed', 1);
});
