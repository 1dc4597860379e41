import 'server-only';
import { singleton } from '../os/process-singletons';

/*
 * A leaf (the console, and lib/os/ for its one feed log): the database checks in db/, the expiry recorder in
 * lib/supervisor/, the idle check and the feeds in lib/server/ all log their outages through it.
 */

/**
 * For a task that retries by itself (the expiry recorder, the idle check, a probe, the live feeds): one line when it starts
 * failing and one when it works again, instead of a line per attempt while the database is away.
 */
export class OutageLog {
  private failingSince: number | undefined;
  private failures = 0;

  constructor(
    private readonly tag: string,
    private readonly what: string,
  ) {}

  failed(error: unknown): void {
    this.failures++;
    if (this.failingSince !== undefined) return;
    this.failingSince = Date.now();
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`[${this.tag}] ${this.what} failed: ${reason} (retrying; logged again once it works)`);
  }

  succeeded(): void {
    if (this.failingSince === undefined) return;
    const seconds = ((Date.now() - this.failingSince) / 1000).toFixed(1);
    console.log(`[${this.tag}] ${this.what} works again after ${seconds} s (${this.failures} failed attempts)`);
    this.failingSince = undefined;
    this.failures = 0;
  }

  get down(): boolean {
    return this.failingSince !== undefined;
  }
}

/** The live feeds' one outage log (lib/os/process-singletons.ts: Next loads modules more than once). */
export const feedOutageLog = (): OutageLog => singleton('log.feed-outage', () => new OutageLog('sse', 'the live feed'));
