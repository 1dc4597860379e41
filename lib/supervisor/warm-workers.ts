import 'server-only';
import type { ChildProcess } from 'node:child_process';
import { spawnWarmWorker } from './worker-process';

/*
 * A few worker processes started ahead of need (lib/worker/warm-start.ts): loading Node and the
 * worker's modules takes seconds on a busy 2-CPU machine (2.2–2.9 s measured at load 10), and a guard
 * attack starts up to seven workers one after another. The pool hands out only processes that have
 * run nothing (a used worker is never handed back) and starts a replacement at once, off the critical
 * path. It fills on first use, not at server start, and lets its processes go after a quiet spell, so
 * a server nobody drives keeps none. Each warm process holds the server's lifeline and its stdin pipe:
 * it ends with the server, however the server ends.
 */

const IDLE_MS = 10 * 60_000;

export class WarmWorkers {
  private readonly ready: ChildProcess[] = [];
  private idle: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly spawn: () => ChildProcess = spawnWarmWorker,
  ) {}

  /** A warm process that has run nothing, if one is ready (a new one is started in its place). */
  take(): ChildProcess | undefined {
    if (this.size === 0 || this.closed) return undefined;
    const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
    let taken: ChildProcess | undefined;
    while (!taken && this.ready.length > 0) {
      const next = this.ready.shift() as ChildProcess;
      if (alive(next)) taken = next;
    }
    if (taken) holdsTheServer(taken, true);
    this.refill();
    return taken;
  }

  /** The process ids of those ready now (for tests). */
  readyPids(): number[] {
    return this.ready.flatMap((child) =>
      child.exitCode === null && child.signalCode === null && child.pid ? [child.pid] : [],
    );
  }

  /** Ends every warm process; the pool stays empty. */
  close(): void {
    this.closed = true;
    this.drain();
  }

  private refill(): void {
    while (this.ready.length < this.size) {
      const child = this.spawn();
      // A warm process that dies (or whose pipe breaks) must not take the server with it.
      child.stdin?.on('error', () => undefined);
      child.stdio[3]?.on('error', () => undefined);
      child.once('exit', () => {
        const at = this.ready.indexOf(child);
        if (at >= 0) this.ready.splice(at, 1);
      });
      // Ready, it does not keep the server (or a test) running; taken, it does, as every worker does.
      holdsTheServer(child, false);
      this.ready.push(child);
    }
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.drain(), IDLE_MS);
    this.idle.unref();
  }

  private drain(): void {
    clearTimeout(this.idle);
    for (const child of this.ready.splice(0)) child.kill('SIGKILL');
  }
}

function holdsTheServer(child: ChildProcess, holds: boolean): void {
  for (const handle of [child, ...child.stdio]) {
    const h = handle as { ref?: () => void; unref?: () => void } | null;
    if (holds) h?.ref?.();
    else h?.unref?.();
  }
}
