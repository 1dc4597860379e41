import type { WireEvent } from '../core/wire';
import type { HistoryFile } from '../history/history-file';
import { YOUR_GUARD_PATH } from '../timeline/timeline-write-words';

/*
 * A your-guard counterexample replayed says which statement ran: the trainee's, as their attempt
 * recorded it (guard_attempts.statement). Every write of one attack ran the guard installed for it
 * (the attack starts by clearing the lab's history), so the attempt's statement is each write's.
 */

/** The events, each write through the guard carrying the statement that ran it. */
export function withGuardStatement(events: readonly WireEvent[], statement: string): WireEvent[] {
  return events.map((event) =>
    (event.kind === 'write_accepted' || event.kind === 'write_rejected') &&
    event.detail.path === YOUR_GUARD_PATH &&
    event.detail.statement === undefined
      ? { ...event, detail: { ...event.detail, statement } }
      : event,
  );
}

/** An attempt's counterexample file, its writes saying what ran. */
export function counterexampleWithStatement(file: HistoryFile, statement: string): HistoryFile {
  return { ...file, events: withGuardStatement(file.events, statement) };
}
