import 'server-only';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type pg from 'pg';
import { appendEvent } from '../../db/events';
import { newClient, toFencingError } from '../../db/pool';
import { markRemoteWorkerStopped, RESET_WHILE_AWAY, registerRemoteWorker } from '../../db/remote-workers';
import { recordWorkerOrigin } from '../../db/worker-status';
import { takesTraineeGuard } from '../labs/traits';
import { isFencingError, UsageError } from '../model/core/errors';
import { WORKER_BOUNDS } from '../model/core/input-bounds';
import { labTitle } from '../model/lab/lab-instance';
import { hasDriftingClock, hasPacketRelay } from '../model/lab/lab-kinds';
import { parseWorkerArgs, WORKER_USAGE, type WorkerArgs } from './args';
import { execShownAs, runExecLane } from './exec-lane';
import { freezeOnSharedMemory, markFrozen, newFreezeState } from './freeze';
import { ACQUIRE_RETRY_MS, LeaseClient, type WorkerReport } from './lease-client';
import { startedByServer } from './local-start';
import type { ListenerData, ToListener, ToMain, WorkerConfig } from './protocol';
import { awaitWarmAssignment } from './warm-start';

/*
 * The one worker program. `npm run worker -- --db <url> --lab <id> --name <name>` runs it by hand,
 * on this machine or another, joining a lab through its PostgreSQL alone; an app server's supervisor
 * forks the same file for the workers a trainer starts from a page (lib/supervisor/worker-process.ts), with
 * the same arguments and, in FENCING_LAB_STARTED_BY, which server started it (local-start.ts). Every
 * worker joins its lab, beats its state into its own status row and takes its commands from the
 * database (listener.ts), whichever app server sent them. Exit codes: 0 stopped (Ctrl-C, SIGTERM,
 * told to stop, the lab was reset or closed), 1 failed, 2 bad usage or refused (no such lab, name in
 * use), 3 no database. It joins one run of the lab (its generation): after a reset, told or not
 * (asleep, SIGSTOPped), the database refuses everything it sends, and it stops saying so.
 */

const EXIT = { stopped: 0, help: 0, failed: 1, usage: 2, noDatabase: 3 } as const;
const STOP_RECORD_TIMEOUT_MS = 3_000;

class Refused extends Error {}

async function main(): Promise<number> {
  // Started warm by an app server: the assignment brings the arguments (warm-start.ts).
  if (!(await awaitWarmAssignment())) return EXIT.stopped;
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(WORKER_USAGE);
    return EXIT.help;
  }
  let args: WorkerArgs;
  try {
    args = parseWorkerArgs(argv, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${WORKER_USAGE}\n${error.message}`);
    return EXIT.usage;
  }
  const local = startedByServer(process.env);
  if (local) {
    // Its stderr is a pipe to the server that started it: once that server is gone, a line written
    // there fails (EPIPE), and must not end the process before its listener has recorded its end.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  }
  const { databaseUrl, settings } = args;
  const connect = async () => {
    const session = newClient(databaseUrl);
    try {
      await session.connect();
    } catch (error) {
      // The connection that failed has nothing to end; the first error is rethrown.
      await session.end().catch(() => undefined);
      throw error;
    }
    return session;
  };
  let session: pg.Client;
  try {
    // One an app server starts while its database is away (crashed, restarting) waits for it.
    session = local ? await firstConnection(connect) : await connect();
  } catch (error) {
    console.error(`cannot reach the database at ${withoutPassword(databaseUrl)}: ${(error as Error).message}`);
    return EXIT.noDatabase;
  }

  const { name } = settings;
  const me = { lab: args.lab, name, instance: randomBytes(16).toString('hex') };
  // One call: the database says whether the lab exists and is open, and what the worker needs of it.
  const joined = await registerRemoteWorker(
    { ...me, settings, ...withJoinKey(local?.joinKey ?? args.joinKey) },
    session,
  );
  if (!joined.joined) {
    if (joined.refusal === 'no_lab') throw new Refused(`no lab ${JSON.stringify(args.lab)} in this database`);
    if (joined.refusal === 'closed') throw new Refused(`the lab ${args.lab} was closed: open a new one in the app`);
    if (joined.refusal === 'full') throw new Refused(`the lab ${args.lab} has as many workers as it takes`);
    if (joined.refusal === 'not_open') {
      throw new Refused(
        `the shared lab ${args.lab} takes no remote workers now: your trainer opens it to them on the lab's page`,
      );
    }
    if (joined.refusal === 'reserved_name') {
      throw new Refused(
        `${JSON.stringify(name)} is a name of the walkthrough's workers: in a shared lab, a remote worker picks another --name`,
      );
    }
    if (joined.refusal === 'address_full') {
      throw new Refused('your address already runs as many remote workers as one machine may: stop one first');
    }
    if (joined.refusal === 'line_names') {
      throw new Refused(
        `your worker line has run ${WORKER_BOUNDS.worker_line_names_per_lab} workers under different names in the lab ${args.lab}: start one under a name it used before`,
      );
    }
    if (joined.refusal === 'protocol') {
      throw new Refused(
        `this worker speaks protocol version ${WORKER_BOUNDS.worker_protocol_version}; the lab's database speaks version ${joined.speaks} (docs/protocol.md): update the worker`,
      );
    }
    if (joined.refusal === 'no_clock_drift') {
      throw new Refused(
        `--clock-slow-percent: only the drifting-clock labs have a drifting clock (${args.lab} is ${joined.kind})`,
      );
    }
    throw new Refused(
      `a worker named ${JSON.stringify(name)} is already running in the lab ${args.lab}: pick another --name`,
    );
  }
  const { generation, lab } = joined;
  const { resource } = lab;
  if (settings.leaseClock !== undefined && !hasDriftingClock(lab.kind)) {
    // Best effort: the refusal below is what the caller reads; a row left live goes stale without beats.
    await markRemoteWorkerStopped(me, session).catch(() => undefined);
    throw new Refused(
      `--lease-clock: only the drifting-clock labs have a lease clock setting (${lab.id} is ${lab.kind})`,
    );
  }
  if (settings.retryAfterMs !== undefined && !hasPacketRelay(lab.kind)) {
    // Best effort: the refusal below is what the caller reads; a row left live goes stale without beats.
    await markRemoteWorkerStopped(me, session).catch(() => undefined);
    throw new Refused(`--retry-after-ms: only the delayed-packet labs retry a write (${lab.id} is ${lab.kind})`);
  }
  if (settings.writeValue !== undefined && !takesTraineeGuard(lab.kind)) {
    // Best effort: the refusal below is what the caller reads; a row left live goes stale without beats.
    await markRemoteWorkerStopped(me, session).catch(() => undefined);
    throw new Refused(
      `--write-value: only the your-guard lab's workers write a value of their choosing (${lab.id} is ${lab.kind})`,
    );
  }
  if (!local && hasPacketRelay(lab.kind)) {
    // Best effort: the refusal below is what the caller reads; a row left live goes stale without beats.
    await markRemoteWorkerStopped(me, session).catch(() => undefined);
    throw new Refused(
      `the ${lab.id} lab runs only workers its app server starts: their connection to PostgreSQL passes through that server's proxy, which holds their writes (start one from the lab's page)`,
    );
  }
  // A worker an app server started gets the lab's short id ("w1") and names its server, whose
  // successor ends its lane if that server dies without a word (lib/jobs/orphaned-workers.ts).
  const origin = local ? { ...local.server, workerPid: process.pid } : null;
  const workerId = await recordWorkerOrigin({ ...me, origin }, session);
  // What it runs with, as the walkthroughs read it back ("it asks for the lease every 50 ms").
  const recorded = { ...settings, acquireRetryMs: ACQUIRE_RETRY_MS };
  const detail = local
    ? { workerId: workerId ?? name, ...recorded, server: local.server }
    : { workerId: name, ...recorded, remote: true };
  const started = local?.restart ? 'worker_restarted' : 'worker_started';
  if (args.exec !== undefined && !local) {
    // A person's own program as this lane (exec-lane.ts): this process joins, beats and freezes it.
    const execDetail = { workerId: name, remote: true, exec: execShownAs(args.exec) };
    await appendEvent(session, { lab: lab.id, actor: name, kind: started, resource, detail: execDetail }, { as: me });
    console.log(`${name} joined ${labTitle(lab)} (${lab.id}) and runs ${JSON.stringify(args.exec)} as its lane`);
    return runExecLane({ command: args.exec, databaseUrl, me, lab, session, detail: execDetail });
  }
  await appendEvent(session, { lab: lab.id, actor: name, kind: started, resource, detail }, { as: me });

  const freezeState = newFreezeState();
  const workerData: ListenerData = {
    databaseUrl,
    lab,
    name,
    instance: me.instance,
    generation,
    detail,
    freezeState,
    chatty: !local,
    ...(local ? { lifelineFd: local.lifelineFd } : {}),
  };
  const listener = new Worker(new URL('./listener-entry.mjs', import.meta.url), { workerData });
  const toListener = (message: ToListener) => listener.postMessage(message);

  let stopping = false;
  /** Ctrl-C, SIGTERM or a failure: recorded like the supervisor records a local worker's end. */
  const stopOnOurOwn = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    toListener({ type: 'stopping' });
    const record = async () => {
      const db = await connect();
      try {
        // In its own run: refused (and so not recorded) if the lab was reset since it joined. Before
        // the row is marked stopped, since a stopped run may record nothing.
        await appendEvent(
          db,
          { lab: lab.id, actor: name, kind: 'worker_stopped', resource, detail: { ...detail, reason } },
          { as: me },
        ).catch(() => undefined); // the database may be away: the lane ends when the heartbeat stops
        await markRemoteWorkerStopped(me, db);
      } finally {
        // The database may be away: the connection ends with the process.
        await db.end().catch(() => undefined);
      }
    };
    // The database may be away: the heartbeat stops anyway, and the lab drops this worker soon after.
    await Promise.race([record(), new Promise((resolve) => setTimeout(resolve, STOP_RECORD_TIMEOUT_MS))]).catch(
      () => undefined,
    );
    if (!local) console.log(`${name} stopped (${reason})`);
    process.exit(code);
  };
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const onSignal = (signal: NodeJS.Signals) => void stopOnOurOwn(signal, EXIT.stopped);
  for (const signal of signals) process.on(signal, onSignal);
  /*
   * A frozen main thread runs no handler, so a caught Ctrl-C would be held until the trainer resumes
   * it. The handlers come off for the freeze: SIGINT and SIGTERM then end the process at once
   * (unrecorded; the lab drops the worker when its heartbeat goes stale), as they end a local one.
   */
  const freeze = () => {
    for (const signal of signals) process.off(signal, onSignal);
    try {
      return freezeOnSharedMemory(freezeState);
    } finally {
      for (const signal of signals) process.on(signal, onSignal);
    }
  };
  listener.once('error', (error) => void stopOnOurOwn(`the command listener failed: ${error.message}`, EXIT.failed));

  const report: WorkerReport = {
    status: (status) => toListener({ type: 'status', ...status }),
    paused: (trigger) => {
      // Marked before the listener hears of it, so its wake-up can never come too early to count.
      markFrozen(freezeState);
      toListener({ type: 'paused', trigger });
    },
  };
  const config: WorkerConfig = { lab, ...settings, generation, instance: me.instance };
  const client = new LeaseClient(config, session, connect, report, freeze);
  listener.on('message', (message: ToMain) => {
    // The listener has marked it stopped; the lab's history is being cleared, so no event.
    if (message.type === 'stop') process.exit(EXIT.stopped);
    client.obey(message.type);
  });
  if (!local) {
    console.log(
      `${name} joined the ${labTitle(lab)} lab (${lab.id}) as a remote worker, pid ${process.pid}. Ctrl-C stops it.`,
    );
  }
  try {
    return await client.run();
  } catch (error) {
    if (isFencingError(error, 'lab_reset')) {
      await stopOnOurOwn(RESET_WHILE_AWAY, EXIT.stopped);
      return EXIT.stopped;
    }
    await stopOnOurOwn(`failed: ${(error as Error).message}`, EXIT.failed);
    return EXIT.failed;
  }
}

const FIRST_CONNECT_RETRY_FIRST_MS = 200;
const FIRST_CONNECT_RETRY_MAX_MS = 2_000;

/** Waits for a database that is away, as the lease loop does after a lost connection; any other failure is fatal. */
async function firstConnection(connect: () => Promise<pg.Client>): Promise<pg.Client> {
  for (let delayMs = FIRST_CONNECT_RETRY_FIRST_MS; ; delayMs = Math.min(delayMs * 2, FIRST_CONNECT_RETRY_MAX_MS)) {
    try {
      return await connect();
    } catch (error) {
      if (!isFencingError(toFencingError(error), 'db_unavailable')) throw error;
      await sleep(delayMs);
    }
  }
}

function withJoinKey(joinKey: string | undefined): { joinKey?: string } {
  return joinKey ? { joinKey } : {};
}

function withoutPassword(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof Refused) {
      console.error(error.message);
      process.exit(EXIT.usage);
    }
    console.error(`the worker failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(EXIT.failed);
  },
);
