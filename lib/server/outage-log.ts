import 'server-only';

/**
 * One log line when something starts failing and one when it works again, never a line per
 * attempt: while the database is away every browser retries every second or so.
 */
export class OutageLog {
  private since: number | undefined;

  constructor(private readonly what: string) {}

  failed(error: unknown): void {
    if (this.since !== undefined) return;
    this.since = Date.now();
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`[${this.what}] unavailable (${reason}); retrying quietly until it is back`);
  }

  recovered(): void {
    if (this.since === undefined) return;
    const seconds = ((Date.now() - this.since) / 1000).toFixed(1);
    this.since = undefined;
    console.log(`[${this.what}] back after ${seconds} s`);
  }

  get down(): boolean {
    return this.since !== undefined;
  }
}

type GlobalWithOutages = typeof globalThis & { __fencingLabFeedOutage?: OutageLog };

/** The live feeds' one outage log (kept on globalThis: Next loads modules more than once). */
export function feedOutageLog(): OutageLog {
  const holder = globalThis as GlobalWithOutages;
  holder.__fencingLabFeedOutage ??= new OutageLog('live feed');
  return holder.__fencingLabFeedOutage;
}
