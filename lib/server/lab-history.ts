import 'server-only';
import { readDatabaseIdentity } from '@/db/database-identity';
import { eventIdRange, readWireEventPage } from '@/db/events';
import { getFeedPool } from '@/db/feed-pool';
import type { LabInstance } from '@/lib/model/lab/lab-instance';

/**
 * Events per page of the history download: 20,000 events are about 1.6 MB of rows. Pages are
 * read one ahead of the client at most (the stream's pull), so a slow client costs the server
 * one page of memory, not the history.
 */
const PAGE_EVENTS = 20_000;

/**
 * A lab's history after `after`, for a page that opens: newline-delimited JSON, its first line the
 * `hello` the live feed would send (the database's identity, the id of the lab's oldest event),
 * then one line per page of events (a WirePage, lib/model/core/wire-page.ts, written by PostgreSQL as
 * for the feed). It ends after the page that was not full. The live feed (lab-feed.ts) stays the one
 * door for what happens next: the page opens it after the last id it read here. This only gets
 * the bulk of a long history to the browser faster: a browser's `fetch` reads a body in about a
 * third of the time its EventSource takes for the same bytes (bench/README.md), and the download
 * can start before the page's scripts run (a preload). `release` runs once, however it ends;
 * `pageEvents` is for tests.
 */
export function labHistoryBody(
  lab: LabInstance,
  after: number,
  release: () => void,
  pageEvents = PAGE_EVENTS,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const db = getFeedPool();
  let lastId = after;
  let started = false;
  let released = false;
  const done = () => {
    if (released) return;
    released = true;
    release();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (!started) {
            started = true;
            const [database, range] = await Promise.all([readDatabaseIdentity(db), eventIdRange(lab.id, db)]);
            controller.enqueue(encoder.encode(`${JSON.stringify({ database, firstId: range.first })}\n`));
            return;
          }
          const page = await readWireEventPage({ lab: lab.id, afterId: lastId, limit: pageEvents }, db);
          if (page.lastId !== null) {
            lastId = page.lastId;
            controller.enqueue(encoder.encode(`${page.json}\n`));
          }
          if (page.count < pageEvents) {
            controller.close();
            done();
          }
        } catch (error) {
          // The browser keeps the pages it read whole and reads the rest from the live feed.
          controller.error(error);
          done();
        }
      },
      cancel() {
        done();
      },
    },
    { highWaterMark: 1 },
  );
}
