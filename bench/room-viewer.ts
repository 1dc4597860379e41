import type pg from 'pg';
import { idsAfterReset, readSse } from '../lib/testing/sse-reader';

/*
 * One trainee's laptop, as far as the server can tell: an EventSource on a lab's live feed, read by
 * Node's fetch. Like EventSource it reconnects with Last-Event-ID when the stream ends (the server
 * drops viewers that fall behind, and they catch up that way), and like the browser's store it
 * forgets its log on `reset`.
 */

const RECONNECT_DELAY_MS = 1_000;

export type RoomViewer = {
  lab: string;
  /** The ids of the lab events received, in the order they arrived. */
  ids: number[];
  reconnects: number;
  stop: () => Promise<void>;
};

export function openViewer(baseUrl: string, lab: string): RoomViewer {
  const abort = new AbortController();
  const viewer: RoomViewer = { lab, ids: [], reconnects: 0, stop: async () => undefined };
  let lastEventId: number | undefined;

  const readOnce = async () => {
    const response = await fetch(`${baseUrl}/api/labs/${lab}/events`, {
      headers: lastEventId === undefined ? {} : { 'Last-Event-ID': String(lastEventId) },
      signal: abort.signal,
    });
    if (!response.ok || !response.body) throw new Error(`${lab}: HTTP ${response.status}`);
    for await (const message of readSse(response.body)) {
      // As the browser does: the events up to a reset's boundary are gone, later ones stay.
      if (message.event === 'reset') viewer.ids = idsAfterReset(viewer.ids, message);
      if (message.event === 'lab-event' && message.id !== undefined) {
        viewer.ids.push(message.id);
        lastEventId = message.id;
      }
    }
  };

  const running = (async () => {
    while (!abort.signal.aborted) {
      await readOnce().catch((error: unknown) => {
        if (!abort.signal.aborted) console.error(`viewer of ${lab}: ${(error as Error).message}`);
      });
      if (abort.signal.aborted) break;
      viewer.reconnects++;
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
    }
  })();
  viewer.stop = async () => {
    abort.abort();
    await running;
  };
  return viewer;
}

export type ViewerCheck = { received: number; lost: number; duplicates: number; outOfOrder: number };

/**
 * What the viewer received against the lab's events in Postgres between the first and the last id
 * it received: an id in the database it never got is lost.
 */
/**
 * What the viewer missed: every event of its lab from its first one to the lab's newest at the end
 * that it does not hold (a viewer whose feed went quiet, or that never got anything, loses them all).
 */
export async function checkViewer(db: pg.Client, viewer: RoomViewer, newestId: number): Promise<ViewerCheck> {
  const { ids } = viewer;
  const received = new Set(ids);
  const duplicates = ids.length - received.size;
  const outOfOrder = ids.filter((id, i) => i > 0 && id <= (ids[i - 1] as number)).length;
  const firstId = ids.length ? ids.reduce((a, b) => Math.min(a, b)) : 0;
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM events WHERE lab = $1 AND id BETWEEN $2 AND $3 ORDER BY id',
    [viewer.lab, firstId, newestId],
  );
  const lost = rows.filter((row) => !received.has(Number(row.id))).length;
  return { received: ids.length, lost, duplicates, outOfOrder };
}
