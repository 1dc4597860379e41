import { GET } from '@/app/api/labs/[lab]/events/route';
import { idsAfterReset, readSse, type SseEvent } from './sse-reader';

/** A lab's live feed read the way a browser's EventSource reads it, straight from the route handler. */

export type { SseEvent };

export function openLabFeed(lab: string, lastEventId?: number, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const request = new Request(`http://lab.test/api/labs/${lab}/events`, {
    headers: lastEventId === undefined ? headers : { ...headers, 'last-event-id': String(lastEventId) },
    signal: abort.signal,
  });
  const response = GET(request, { params: Promise.resolve({ lab }) });
  const received: SseEvent[] = [];
  let ended = false;
  const reading = (async () => {
    const body = (await response).body;
    if (!body) return;
    for await (const message of readSse(body)) received.push(message);
  })()
    .catch(() => undefined)
    .finally(() => {
      ended = true;
    });

  return {
    /**
     * The request, held as long as the feed is: a Request's signal follows the one it was given
     * only while the Request itself is alive (undici), so a collected one would never see close().
     */
    request,
    /** The route handler's response (its status, for a feed that was refused). */
    response,
    /** Everything received so far, in order. */
    received,
    /** The ids of the lab events the client holds now: a `reset` drops those up to its `upTo`, as the browser's store does. */
    eventIds: () => {
      let ids: number[] = [];
      for (const m of received) {
        if (m.event === 'lab-event') ids.push(m.id as number);
        if (m.event === 'reset') ids = idsAfterReset(ids, m);
      }
      return ids;
    },
    ended: () => ended,
    close: async () => {
      abort.abort();
      await reading;
    },
  };
}
