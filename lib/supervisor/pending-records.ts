import 'server-only';
import { appendEvent } from '../../db/events';
import { getPool } from '../../db/pool';
import { OutageLog } from '../log/outage-log';
import { isFencingError } from '../model/core/errors';
import type { NewEvent } from '../model/core/events';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;
/** How long an event waits for the database before it is given up (said in the log). */
const GIVE_UP_AFTER_MS = 10 * 60_000;

type Pending = { event: NewEvent; generation: number | undefined; since: number };

/**
 * What the supervisor saw while the database was away (a worker that exited, say): kept, in order,
 * and written once the database is back, so that a lane ends where its worker really ended instead
 * of running on. One writer at a time; back-off from 0.5 s to 5 s; one log line per outage.
 */
export class PendingRecords {
  private readonly queue: Pending[] = [];
  private draining = false;
  private readonly outage = new OutageLog('supervisor', 'recording what happened while the database was away');

  add(event: NewEvent, generation: number | undefined): void {
    this.queue.push({ event, generation, since: Date.now() });
    if (!this.draining) void this.drain();
  }

  get size(): number {
    return this.queue.length;
  }

  private async drain(): Promise<void> {
    this.draining = true;
    let delayMs = FIRST_RETRY_MS;
    try {
      while (this.queue.length > 0) {
        const next = this.queue[0] as Pending;
        try {
          await appendEvent(getPool(), next.event, { generation: next.generation });
          this.outage.succeeded();
          this.queue.shift();
          delayMs = FIRST_RETRY_MS;
        } catch (error) {
          if (isFencingError(error, 'db_unavailable') && Date.now() - next.since < GIVE_UP_AFTER_MS) {
            this.outage.failed(error);
            await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
            delayMs = Math.min(delayMs * 2, MAX_RETRY_MS);
            continue;
          }
          // Refused for good (the lab was reset since: it belongs to a history that is gone), or too old.
          console.error(
            `[supervisor] gave up recording ${next.event.kind} of ${next.event.actor}:`,
            (error as Error).message,
          );
          this.queue.shift();
        }
      }
    } finally {
      this.draining = false;
    }
  }
}
