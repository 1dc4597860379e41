import pg from 'pg';
import type { WireEvent } from '../lib/model/core/wire';
import { readSse } from '../lib/testing/sse-reader';
import { appDatabaseUrl } from './app-database';

/**
 * A shared lab as the database of the app under test holds it, read apart from the app: its events
 * (its history since the last reset), its protected row, its lease; and its workers as the app's
 * own feed reports them (local workers are processes of the app, not rows).
 */
export type LabState = {
  events: WireEvent[];
  row: { value: string; lastToken: number } | undefined;
  lease: { holder: string; token: number } | undefined;
  /** "id name alive|dead", one per worker the app runs for the lab. */
  workers: string[];
};

type EventRow = {
  id: string;
  lab: string;
  at: Date;
  actor: string;
  kind: WireEvent['kind'];
  token: string | null;
  stored_token: string | null;
  detail: Record<string, unknown>;
};

async function eventsOf(client: pg.Client, lab: string): Promise<WireEvent[]> {
  const events = await client.query<EventRow>(
    'SELECT id, lab, at, actor, kind, token, stored_token, detail FROM events WHERE lab = $1 ORDER BY id',
    [lab],
  );
  return events.rows.map((e) => ({
    id: Number(e.id),
    lab: e.lab,
    at: e.at.getTime(),
    actor: e.actor,
    kind: e.kind,
    ...(e.token === null ? {} : { token: Number(e.token) }),
    ...(e.stored_token === null ? {} : { storedToken: Number(e.stored_token) }),
    detail: e.detail,
  }));
}

/** A lab's events as its database holds them now (its history since the last reset). */
export async function readLabEvents(lab: string): Promise<WireEvent[]> {
  const client = new pg.Client({ connectionString: await appDatabaseUrl() });
  await client.connect();
  try {
    return await eventsOf(client, lab);
  } finally {
    await client.end();
  }
}

export async function readLabState(baseURL: string, lab: string): Promise<LabState> {
  const client = new pg.Client({ connectionString: await appDatabaseUrl() });
  await client.connect();
  try {
    const row = await client.query<{ value: string; last_token: string }>(
      'SELECT value, last_token FROM protected_rows WHERE id = (SELECT row_id FROM labs WHERE id = $1)',
      [lab],
    );
    const lease = await client.query<{ holder: string; token: string }>(
      'SELECT holder, token FROM leases WHERE resource = (SELECT resource FROM labs WHERE id = $1)',
      [lab],
    );
    const rowNow = row.rows[0];
    const leaseNow = lease.rows[0];
    return {
      events: await eventsOf(client, lab),
      row: rowNow && { value: rowNow.value, lastToken: Number(rowNow.last_token) },
      lease: leaseNow && { holder: leaseNow.holder, token: Number(leaseNow.token) },
      workers: await feedWorkers(baseURL, lab),
    };
  } finally {
    await client.end();
  }
}

/** The workers in the first snapshot of the lab's live feed (read as a browser reads it, then closed). */
async function feedWorkers(baseURL: string, lab: string): Promise<string[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  try {
    const response = await fetch(new URL(`/api/labs/${lab}/events`, baseURL), { signal: abort.signal });
    if (!response.body) throw new Error(`the feed of ${lab} answered ${response.status} with no body`);
    for await (const message of readSse(response.body)) {
      if (message.event !== 'snapshot') continue;
      const workers = (message.data as { workers: Array<{ id: string; name: string; alive: boolean }> }).workers;
      return workers.map((w) => `${w.id} ${w.name} ${w.alive ? 'alive' : 'dead'}`).toSorted();
    }
    throw new Error(`the feed of ${lab} ended before its snapshot`);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
