import { type ChildProcess, spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../launcher/paths';
import { isAlive } from '../os/processes';

/**
 * `npm run worker -- <args>` as a person starts it from a shell, for tests: a real child process in
 * its own process group (npm, then the worker that replaces its shell), so that stop() ends all of it:
 * a SIGTERM first, as a person's kill, then SIGKILL.
 */
const STOP_GRACE_MS = 10_000;

export type RemoteWorkerRun = {
  child: ChildProcess;
  /** What it printed so far, stdout and stderr together. */
  output(): string;
  /** The worker's own pid, as its start line prints it. */
  pid(): Promise<number>;
  /** Its exit code (null: killed by a signal). */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after graceMs (default 10 s; 0: SIGKILL at once, for a worker frozen on purpose). */
  stop(graceMs?: number): Promise<void>;
};

export function startRemoteWorker(args: string[], env: NodeJS.ProcessEnv = process.env): RemoteWorkerRun {
  const child = spawn('npm', ['run', '--silent', 'worker', '--', ...args], {
    cwd: PROJECT_ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const printedPid = () => Number(out.match(/pid (\d+)/)?.[1]);
  return {
    child,
    output: () => out,
    exited,
    pid: () =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (printedPid()) resolve(printedPid());
        };
        listeners.add(check);
        check();
        void exited.then((code) => reject(new Error(`the worker exited (${code}) before it started:\n${out}`)));
      }),
    stop: async (graceMs = STOP_GRACE_MS) => {
      const group = child.pid;
      const signal = (name: NodeJS.Signals) => {
        try {
          if (group !== undefined) process.kill(-group, name);
        } catch {
          // already gone
        }
      };
      if (group !== undefined && child.exitCode === null && child.signalCode === null) {
        // As a person stops it (a kill, Ctrl-C): the worker ends what it runs (an --exec program's group
        // too) and records its stop; one that does not end within 10 s is killed.
        if (graceMs > 0) signal('SIGTERM');
        const killer = setTimeout(() => signal('SIGKILL'), graceMs);
        await exited;
        clearTimeout(killer);
      }
      const pid = printedPid();
      if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    },
  };
}
