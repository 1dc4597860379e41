import { z } from 'zod';

/*
 * What each NOTIFY channel carries, as the triggers and functions in db/ send it. Any role may run
 * the SQL command NOTIFY (pg_notify() is revoked from the worker role, the command is not), so a
 * payload is whatever anyone with a connection wrote: it is parsed against these shapes, and one
 * that does not fit is dropped. A notification is only ever a hint to read the database again.
 */

const LAB_ID_MAX_CHARS = 64;
const WORKER_NAME_MAX_CHARS = 200;
const labId = z.string().min(1).max(LAB_ID_MAX_CHARS);
const rowId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * fencing_events: a new event's id (0002's trigger), a lab reset up to an event id (db/events.ts,
 * db/labs.ts), or a lab whose state changed without an event (the step the trainer shows: db/shown-step.ts;
 * a question to the room asked, answered or revealed: db/functions/fl_poll_*.sql).
 */
const eventNote = z.union([
  z.strictObject({ id: rowId, lab: labId }),
  z.strictObject({ lab: labId }),
  z.strictObject({
    lab: labId,
    reset: z.literal(true),
    upTo: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  }),
]);

/** fencing_guard_attempts: a new guard attempt's id (0034's trigger). */
const guardAttemptNote = z.strictObject({ id: rowId });

/** fencing_client_runs: a client run that started or ended (0052's trigger). */
const clientRunNote = z.strictObject({ id: rowId });

/** fencing_worker_commands: which worker has a new command waiting (0007's trigger). */
const workerCommandNote = z.strictObject({ lab: labId, worker: z.string().min(1).max(WORKER_NAME_MAX_CHARS) });

export type EventNote = {
  lab: string;
  id?: number;
  reset?: boolean;
  upTo?: number;
  guardAttempt?: number;
  clientRun?: number;
};
export type WorkerCommandNote = z.infer<typeof workerCommandNote>;

export const EVENTS_CHANNEL = 'fencing_events';
export const GUARD_ATTEMPTS_CHANNEL = 'fencing_guard_attempts';
export const CLIENT_RUNS_CHANNEL = 'fencing_client_runs';

function parsed<T>(schema: z.ZodType<T>, payload: string | undefined): T | undefined {
  if (payload === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    // Not JSON: no note in it, as for a payload that does not match the schema.
    return undefined;
  }
  const result = schema.safeParse(json);
  return result.success ? result.data : undefined;
}

/**
 * A notification on the server's LISTEN connection as a note for the feeds, or undefined when its
 * payload is not one the database sends. A guard attempt, or a client run, becomes a note of no lab ('').
 */
export function eventNoteOf(channel: string, payload: string | undefined): EventNote | undefined {
  if (channel === GUARD_ATTEMPTS_CHANNEL) {
    const note = parsed(guardAttemptNote, payload);
    return note && { lab: '', guardAttempt: note.id };
  }
  if (channel === CLIENT_RUNS_CHANNEL) {
    const note = parsed(clientRunNote, payload);
    return note && { lab: '', clientRun: note.id };
  }
  if (channel !== EVENTS_CHANNEL) return undefined;
  const note = parsed(eventNote, payload);
  if (!note) return undefined;
  if ('id' in note) return { lab: note.lab, id: note.id };
  return 'reset' in note ? { lab: note.lab, reset: true, upTo: note.upTo } : { lab: note.lab };
}

/** A notification on a worker's command channel, or undefined when its payload is not one the database sends. */
export function workerCommandNoteOf(payload: string | undefined): WorkerCommandNote | undefined {
  return parsed(workerCommandNote, payload);
}

/**
 * Logs dropped notifications at most once a minute (a flood of junk must not flood the log too):
 * the first at once, then how many more were dropped, when the minute is over and another comes.
 */
export class DroppedNotesLog {
  private lastLoggedAt = Number.NEGATIVE_INFINITY;
  private unlogged = 0;

  constructor(
    private readonly where: string,
    private readonly everyMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  dropped(channel: string, payload: string | undefined): void {
    this.unlogged++;
    const at = this.now();
    if (at - this.lastLoggedAt < this.everyMs) return;
    const sample = JSON.stringify((payload ?? '').slice(0, 80));
    console.warn(
      `[${this.where}] dropped ${this.unlogged} notification(s) not in the shape the database sends (latest on ${channel}: ${sample})`,
    );
    this.lastLoggedAt = at;
    this.unlogged = 0;
  }
}
