import 'server-only';
import { readDatabaseIdentity } from '@/db/database-identity';
import { eventIdRange, readWireEventPage } from '@/db/events';
import { getFeedPool } from '@/db/feed-pool';
import { findLab, type LabRecord } from '@/db/labs';
import type { LabInstance } from '@/lib/model/lab/lab-instance';
import type { Backlog, Drained, Send, SseMessage } from './event-stream';
import { getLabHub, labSnapshotMessage } from './lab-hub';

/**
 * A history page: one query, then nothing more until the client has read the page. Sized by
 * bytes, not count: the first page has FIRST events, each next one as many as the last page's
 * bytes per event say fit in BYTES (within MIN..MAX events). Fewer, larger pages: each costs a
 * query and a round trip to the browser (500 a page took 400 pages for 200,000 events).
 */
const HISTORY_PAGE = { bytes: 1024 * 1024, firstEvents: 500, minEvents: 100, maxEvents: 20_000 } as const;
/**
 * Live events the hub may hand a viewer while one page of its history is being read. Past this the
 * viewer is closed, and its browser resumes from the last id it holds.
 */
const MAX_HELD_EVENTS = 5_000;

/**
 * One viewer's feed of a lab: `hello` (the database's identity, so that a client notices another
 * database, and the id of the lab's oldest event, so that it drops events a reset deleted), its
 * history after `after` a page at a time (each page one `lab-events` message: its events as rows,
 * lib/model/core/wire-page.ts, with the id of its last), a snapshot, `caught-up`, then the live events the lab's hub hands
 * every viewer, one `lab-event` each. Returns the cleanup.
 *
 * Bounded: a page is read only once the client has read the previous one, and meanwhile the hub's
 * events are not kept: they are in the database, and a later page reads them. Only while a page is
 * being read are they held (a read may miss what commits during it), and only the last page's are
 * sent on, skipped by id if that page already had them. No gap and no double: ids are commit
 * order, and the hub hands them in order.
 */
export async function startLabFeed(options: {
  lab: LabInstance;
  after: number;
  send: Send;
  close: () => void;
  backlog: Backlog;
  drained: Drained;
}): Promise<() => void> {
  const { lab, after, send, close, backlog, drained } = options;
  let live = false;
  let held: SseMessage[] | undefined;
  let lastSentId = after;
  const sendOnce = (message: SseMessage) => {
    if (message.id !== undefined) {
      if (message.id <= lastSentId) return;
      lastSentId = message.id;
    }
    send(message);
  };
  const leave = await getLabHub().join(lab, {
    deliver: (message) => {
      if (live) return sendOnce(message);
      // A newer snapshot is sent at caught-up.
      if (message.event === 'snapshot') return;
      // A reset carries its boundary, so it may go out at once unless a page being read may still
      // hold events it deleted (then it follows that page).
      if (held) held.push(message);
      else if (message.event === 'reset') send(message);
      if (held && held.length > MAX_HELD_EVENTS) close();
    },
    close,
    backlogBytes: () => (live ? backlog() : 0),
  });
  try {
    const db = getFeedPool();
    const [database, range] = await Promise.all([readDatabaseIdentity(db), eventIdRange(lab.id, db)]);
    send({ event: 'hello', data: { lab: lab.id, database, firstId: range.first } });
    let limit: number = HISTORY_PAGE.firstEvents;
    for (;;) {
      held = [];
      // The page as the browser reads it, written by PostgreSQL (no row reaches JavaScript).
      const page = await readWireEventPage({ lab: lab.id, afterId: lastSentId, limit }, db);
      const last = page.count < limit;
      // Read while the hub's events are still held: the snapshot may show their effect.
      const snapshot = last ? await labSnapshotMessage(lab, db) : undefined;
      const meanwhile: SseMessage[] = held;
      held = undefined;
      // One message for the page, with the id of its last event: a browser that reconnects resumes
      // after the last page it received whole (a message is dispatched only once complete). Every
      // event in it is after lastSentId, which nothing else moves while the history is read.
      if (page.lastId !== null) sendOnce({ id: page.lastId, event: 'lab-events', json: page.json });
      const bytesPerEvent = page.json.length / Math.max(1, page.count);
      if (snapshot) {
        send(snapshot);
        send({ event: 'caught-up', data: { lastId: lastSentId } });
        // What the hub delivered during the last reads, in its order: events up to lastSentId
        // were in the page; a reset goes on as it is (its boundary drops exactly what it deleted).
        for (const message of meanwhile) sendOnce(message);
        live = true;
        return leave;
      }
      // More pages to come: the events held meanwhile are read with them, in order.
      for (const message of meanwhile) if (message.event === 'reset') send(message);
      if (!(await drained())) return leave;
      if (bytesPerEvent > 0) {
        const fit = Math.floor(HISTORY_PAGE.bytes / bytesPerEvent);
        limit = Math.min(HISTORY_PAGE.maxEvents, Math.max(HISTORY_PAGE.minEvents, fit));
      }
    }
  } catch (error) {
    leave();
    throw error;
  }
}

/** A lab as the live feed and the history download find it: on the feeds' own pool, so that a full app pool never holds a feed up. */
export function findFeedLab(id: string): Promise<LabRecord | undefined> {
  return findLab(id, getFeedPool());
}
