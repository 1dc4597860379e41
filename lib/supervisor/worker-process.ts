import 'server-only';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { WorkerStatusRecord } from '../../db/worker-status';
import type { WorkerSettings } from '../model/lab/lab-inputs';
import type { LabInstance } from '../model/lab/lab-instance';
import type { PacketRelay } from '../os/packet-relay';
import { type ProcessRun, processRunOf } from '../os/processes';
import { WORKER_BUNDLE_ENV } from '../os/worker-bundle-env';
import { LIFELINE_FD, startedByEnv } from '../worker/local-start';
import { WARM_ENV, warmAssignmentLine } from '../worker/warm-start';

/** The project root: where the worker's entry file is. The launcher starts Next there. */
function projectRoot(): string {
  return process.env.FENCING_LAB_ROOT ?? process.cwd();
}

/**
 * What this server stamps on each worker it starts (`detail.server`): the run of its own process. A
 * later server ends the lanes of workers whose stamped run is gone (lib/jobs/orphaned-workers.ts).
 */
export function thisServerRun(): ProcessRun | undefined {
  return processRunOf(process.pid);
}

/** What a worker that failed before it joined said last on its stderr (at most this much). */
const STDERR_TAIL_CHARS = 2_000;

/**
 * One worker OS process this server started: the worker program (lib/worker/main.ts), run with the
 * same arguments as `npm run worker`. Its commands reach it through the database like any worker's;
 * this server only holds the write end of its lifeline (fd 3 in the child), which it never writes:
 * when this server's process goes, however it goes, the worker sees end of file and ends itself.
 */
export class WorkerProcess {
  readonly child: ChildProcess;
  readonly lab: LabInstance;
  readonly name: string;
  exitCode: number | null | undefined;
  /** The signal that ended it, if one did (kill -9 from outside, or this server's SIGKILL). */
  exitSignal: NodeJS.Signals | null = null;
  /** This server is ending it (a stop, a crash, a restart, a reset, shutdown) and records its end itself. */
  endExpected = false;
  readonly exited: Promise<void>;
  /** Its status row when it joined: what the server knows of it while the database is away. */
  joinedAs: WorkerStatusRecord | undefined;
  /** The delayed-packet labs: the packet relay its connections pass through, closed when the process ends. */
  readonly relay: PacketRelay | undefined;
  private stderrTail = '';

  constructor(
    lab: LabInstance,
    settings: WorkerSettings,
    databaseUrl: string,
    {
      restart,
      joinKey,
      relay,
      warm,
    }: { restart: boolean; joinKey?: string; relay?: PacketRelay; warm?: ChildProcess | undefined },
  ) {
    this.lab = lab;
    this.relay = relay;
    this.name = settings.name;
    const server = thisServerRun();
    if (!server) throw new Error('cannot tell this server process apart (no /proc entry for it)');
    const args = [
      `--lab=${lab.id}`,
      `--name=${settings.name}`,
      `--lease-ttl-ms=${settings.leaseTtlMs}`,
      `--renew-every-ms=${settings.renewEveryMs}`,
      `--write-every-ms=${settings.writeEveryMs}`,
      ...(settings.clockSlowPercent === undefined ? [] : [`--clock-slow-percent=${settings.clockSlowPercent}`]),
      ...(settings.leaseClock === undefined ? [] : [`--lease-clock=${settings.leaseClock}`]),
      ...(settings.retryAfterMs === undefined ? [] : [`--retry-after-ms=${settings.retryAfterMs}`]),
      ...(settings.writeValue === undefined ? [] : [`--write-value=${settings.writeValue}`]),
    ];
    // The database URL in the environment (or the warm assignment), not on the command line (where
    // `ps` shows it). The worker role's URL, never the owner's; nor does the worker get the trainer key.
    const env = {
      DATABASE_URL: databaseUrl,
      ...startedByEnv({ server, restart, ...(joinKey ? { joinKey } : {}) }),
    };
    if (warm) {
      this.child = warm;
      warm.stdin?.end(warmAssignmentLine({ args, env }));
    } else {
      this.child = spawnWorkerProgram(args, { ...withoutServerSecrets(process.env), ...env });
    }
    if (LIFELINE_FD !== 3) throw new Error('the lifeline is the fourth stdio entry above');
    this.child.stderr?.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    const lifeline = this.child.stdio[LIFELINE_FD];
    lifeline?.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        this.exitSignal = signal;
        // Its network goes with it: no packet relay outlives its worker (nor holds bytes for nobody).
        void this.relay?.close();
        resolve();
      });
    });
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Why it ended before it joined, in its own words (its last stderr line). */
  failure(): string {
    const lines = this.stderrTail.trim().split('\n');
    return lines.at(-1) || `the worker exited (${this.exitCode})`;
  }

  /** SIGKILL works on a frozen process too; resolves when it is gone. */
  async kill(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }
}

/**
 * Starts the worker program: with its arguments (a cold start), or with none and WARM_ENV, to wait for
 * them on its stdin (a warm one, lib/supervisor/warm-workers.ts). fd 3 is the lifeline. No IPC
 * channel: commands travel through the database.
 */
export function spawnWorkerProgram(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--conditions=react-server', ...workerEntry(), ...args], {
    cwd: projectRoot(),
    env,
    stdio: [env[WARM_ENV] === '1' ? 'pipe' : 'ignore', 'inherit', 'pipe', 'pipe'],
  });
}

/**
 * The worker program's entry: the bundle that the command which started this server or test made
 * (lib/os/worker-bundle.ts), when it is there; otherwise the TypeScript, through tsx.
 */
export function workerEntry(): string[] {
  const bundle = process.env[WORKER_BUNDLE_ENV];
  const main = bundle ? path.join(bundle, 'main.mjs') : undefined;
  if (main && existsSync(main)) return [main];
  return ['--import', 'tsx', path.join(projectRoot(), 'lib', 'worker', 'main.ts')];
}

/** A warm worker process: loaded, waiting for its assignment. */
export function spawnWarmWorker(): ChildProcess {
  return spawnWorkerProgram([], { ...withoutServerSecrets(process.env), [WARM_ENV]: '1' });
}

/** What a worker process inherits of the server's environment: not the server's own secrets. */
function withoutServerSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { FENCING_LAB_TRAINER_KEY: _key, FENCING_LAB_LOCAL_WORKER_PASSWORD: _local, ...rest } = env;
  return rest;
}
