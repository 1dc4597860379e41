import type { EventKind } from './events';
import type { WireEvent } from './wire';

/*
 * A page of a lab's history as the live feed sends it (one `lab-events` message): the lab once, and
 * each event as a row of its fields by position, its id and time as steps from the event before it
 * (the first from 0). A `lab-event` object repeats its field names, its lab, a 7-digit id and a
 * 13-digit time in every event: the rows are about half the bytes, and a browser's EventSource
 * takes a message in time proportional to its bytes (28 MB for 200,000 events took it 0.5–1.7 s,
 * against 0.2–0.3 s for the same bytes read with fetch, in bench/README's measurements).
 * PostgreSQL writes the page (db/events.ts, readWireEventPage); `fromWirePage` turns it back into
 * exactly the events a `lab-event` would have carried (db/event-page-json.test.ts).
 */

/** [id step, at step (ms), actor, kind, resource, rowId, token, storedToken, outcome, detail]; null when absent. */
export type WireRow = [
  idStep: number,
  atStepMs: number,
  actor: string,
  kind: string,
  resource: string | null,
  rowId: number | null,
  token: number | null,
  storedToken: number | null,
  outcome: string | null,
  detail: Record<string, unknown>,
];

export type WirePage = { lab: string; rows: WireRow[] };

/** The events of a page, in its order, each exactly as toWire shapes it (absent fields left out, not undefined). */
export function fromWirePage(page: WirePage): WireEvent[] {
  const events: WireEvent[] = new Array(page.rows.length);
  let id = 0;
  let at = 0;
  for (let i = 0; i < page.rows.length; i++) {
    const [idStep, atStep, actor, kind, resource, rowId, token, storedToken, outcome, detail] = page.rows[i] as WireRow;
    id += idStep;
    at += atStep;
    const event: WireEvent = { id, lab: page.lab, actor, kind: kind as EventKind, at, detail };
    if (resource !== null) event.resource = resource;
    if (rowId !== null) event.rowId = rowId;
    if (token !== null) event.token = token;
    if (storedToken !== null) event.storedToken = storedToken;
    if (outcome !== null) event.outcome = outcome;
    events[i] = event;
  }
  return events;
}

/** The page of these events (in id order, all of one lab): what readWireEventPage writes, for tests. */
export function toWirePage(lab: string, events: WireEvent[]): WirePage {
  let id = 0;
  let at = 0;
  const rows = events.map((e): WireRow => {
    const row: WireRow = [
      e.id - id,
      e.at - at,
      e.actor,
      e.kind,
      e.resource ?? null,
      e.rowId ?? null,
      e.token ?? null,
      e.storedToken ?? null,
      e.outcome ?? null,
      e.detail,
    ];
    id = e.id;
    at = e.at;
    return row;
  });
  return { lab, rows };
}
