import 'server-only';
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { WorkerSettings } from '../model/lab-inputs';
import type { LabInstance } from '../model/lab-instance';
import { PAUSE_FD, type SupervisorMessage, type WorkerConfig, type WorkerMessage } from '../worker/protocol';

/** The project root: where the worker's entry file is. The launcher starts Next there. */
function projectRoot(): string {
  return process.env.FENCING_LAB_ROOT ?? process.cwd();
}

export type WorkerStatus = Extract<WorkerMessage, { type: 'status' }>;

/**
 * One worker OS process: forked with its own database connection, an IPC channel, and the pause
 * pipe on fd 3 (see lib/worker/freeze.ts). The supervisor talks to it only through this.
 */
export class WorkerProcess {
  readonly child: ChildProcess;
  status: WorkerStatus = { type: 'status', phase: 'starting', armed: false };
  exitCode: number | null | undefined;
  /** Between the worker saying it freezes and the byte that wakes it: the only time a byte may go. */
  frozen = false;
  private readonly pausePipe: Writable;
  private readonly exited: Promise<void>;
  private pausedWaiters: Array<() => void> = [];

  constructor(
    lab: LabInstance,
    workerId: string,
    settings: WorkerSettings,
    /** The worker role's URL (db/roles.ts workerUrlFrom): a worker connects as nothing else. */
    databaseUrl: string,
    /** The run of the lab it joined (db/lab-generation.ts), and its per-run secret (db/worker-identity.ts). */
    joined: { generation: number; instance: string },
    private readonly onMessage: (message: WorkerMessage) => void,
  ) {
    const config: WorkerConfig = { lab, workerId, ...settings, databaseUrl, ...joined };
    const entry = path.join(projectRoot(), 'lib', 'worker', 'main.ts');
    this.child = fork(/* turbopackIgnore: true */ entry, [], {
      cwd: projectRoot(),
      execArgv: ['--conditions=react-server', '--import', 'tsx'],
      env: { ...process.env, FENCING_LAB_WORKER: JSON.stringify(config) },
      // fd 3 is the pause pipe; the IPC channel follows it.
      stdio: ['ignore', 'inherit', 'inherit', 'pipe', 'ipc'],
    });
    this.pausePipe = this.child.stdio[PAUSE_FD] as Writable;
    this.pausePipe.on('error', () => undefined); // the worker may be gone already
    this.child.on('message', (message: WorkerMessage) => {
      if (message.type === 'status') this.status = message;
      if (message.type === 'paused') {
        this.frozen = true;
        for (const waiter of this.pausedWaiters.splice(0)) waiter();
      }
      this.onMessage(message);
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        this.status = { ...this.status, phase: 'stopped' };
        resolve();
      });
    });
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  send(message: SupervisorMessage): void {
    if (this.alive && this.child.connected) this.child.send(message);
  }

  /** Resolves once the worker reports that it is about to freeze, or after timeoutMs. */
  waitUntilPaused(timeoutMs: number): Promise<boolean> {
    if (this.frozen) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.pausedWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  /**
   * Unfreezes a frozen worker: one byte down the pause pipe, once per freeze. A second byte would
   * sit in the pipe and make the next freeze end at once.
   */
  unfreeze(): void {
    if (!this.alive || !this.frozen) return;
    this.frozen = false;
    this.pausePipe.write(Buffer.from([1]));
  }

  /** SIGKILL works on a frozen process too; resolves when it is gone. */
  async kill(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }
}
