import type { LabSnapshot, WireEvent } from '@/lib/model/core/wire';
import { fromWirePage, type WirePage } from '@/lib/model/core/wire-page';
import { downloadHistory } from './history-download';
import type { LabStoreApi } from './lab-store';

/*
 * Keeps a lab's store fed from its live feed, and heals the feed whatever broke it. A browser's
 * EventSource reconnects by itself after a stream that ends (sending Last-Event-ID), but gives up
 * for good after an answer that is not a 200 event stream, and a stream can also hang half-open
 * (a laptop's sleep, a NAT). So a new EventSource is opened, with back-off, when the old one is
 * CLOSED or has said nothing for longer than the server's heartbeat; it resumes with ?after= the
 * last id held (a new EventSource sends no Last-Event-ID). Events are stored in id order, each once.
 */

/** A lone event is stored at once; a burst (a history of thousands) in batches of one frame. */
const FLUSH_MS = 16;
/** The server writes at least every 15 s (a heartbeat; a snapshot every second while live). */
const SILENCE_MS = 20_000;
const BACKOFF_MS = { first: 500, max: 10_000 } as const;

export function followLabFeed(lab: string, store: LabStoreApi): () => void {
  const { getState } = store;
  let source: EventSource | undefined;
  let stopped = false;
  let attempt = 0;
  let reopenTimer: ReturnType<typeof setTimeout> | undefined;
  let silenceTimer: ReturnType<typeof setTimeout> | undefined;
  // The newest id this page received, stored or still pending: where a new stream resumes.
  let lastId = 0;
  let pending: WireEvent[] = [];
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  let lastFlush = 0;
  let caughtUp = false;

  const flush = () => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = undefined;
    lastFlush = performance.now();
    const batch = pending;
    pending = [];
    getState().receiveEvents(batch);
  };
  const receive = (events: WireEvent[]) => {
    for (const event of events) {
      if (event.id <= lastId) continue;
      lastId = event.id;
      pending.push(event);
    }
    if (!caughtUp || flushTimer) return;
    const since = performance.now() - lastFlush;
    if (since >= FLUSH_MS) flush();
    else flushTimer = setTimeout(flush, FLUSH_MS - since);
  };
  const parse = <T>(message: Event) => JSON.parse((message as MessageEvent).data as string) as T;
  const notLive = (note?: string) =>
    getState().setConnection(getState().connection === 'connecting' ? 'connecting' : 'reconnecting', note);

  const reopenLater = (note?: string) => {
    source?.close();
    source = undefined;
    clearTimeout(silenceTimer);
    if (stopped || reopenTimer) return;
    notLive(note);
    const delay = Math.min(BACKOFF_MS.max, BACKOFF_MS.first * 2 ** attempt) * (0.75 + Math.random() / 2);
    attempt++;
    reopenTimer = setTimeout(() => {
      reopenTimer = undefined;
      open();
    }, delay);
  };

  const heard = () => {
    clearTimeout(silenceTimer);
    silenceTimer = setTimeout(() => reopenLater('the live feed went silent'), SILENCE_MS);
  };

  function open() {
    if (stopped) return;
    const current = new EventSource(`/api/labs/${encodeURIComponent(lab)}/events?after=${lastId}`);
    source = current;
    // Every handler below acts only for the current stream: one closed or replaced says nothing more.
    const on = (event: string, handle: (message: Event) => void) =>
      current.addEventListener(event, (message) => {
        if (source !== current) return;
        heard();
        handle(message);
      });
    heard();
    on('open', () => {
      caughtUp = false;
    });
    on('error', () => {
      // CLOSED: the browser gave up for good (an answer that was not a 200 event stream).
      if (current.readyState === EventSource.CLOSED) reopenLater();
      else notLive(getState().connectionNote);
    });
    on('unavailable', (m) => notLive(parse<{ message: string }>(m).message));
    on('busy', (m) => notLive(parse<{ message: string }>(m).message));
    on('failure', () => notLive('the live feed could not start; retrying'));
    on('hello', (m) => {
      const hello = parse<{ firstId: number | null; database: string }>(m);
      if (getState().receiveHello(hello) === 'new-database') {
        // Another database: its ids are not ours. Read its history from the start, on a new stream.
        pending = [];
        lastId = 0;
        source = undefined;
        current.close();
        open();
        return;
      }
      pending = hello.firstId === null ? [] : pending.filter((e) => e.id >= (hello.firstId as number));
    });
    on('caught-up', () => {
      caughtUp = true;
      attempt = 0;
      flush();
      getState().setConnection('live');
    });
    on('reset', (m) => {
      // Events after the reset may have arrived before the word of it: only older ones go.
      const { upTo } = parse<{ upTo?: number }>(m);
      pending = upTo === undefined ? [] : pending.filter((e) => e.id > upTo);
      getState().receiveReset(upTo);
    });
    on('lab-event', (m) => receive([parse<WireEvent>(m)]));
    // A page of the history: one message (parsing and dispatching 200,000 messages one by one took
    // seconds), its events as rows (half the bytes, lib/model/core/wire-page.ts).
    on('lab-events', (m) => receive(fromWirePage(parse<WirePage>(m))));
    on('snapshot', (m) => getState().receiveSnapshot(parse<LabSnapshot>(m)));
  }

  // The history first, in one download (history-download.ts), shown as soon as it is read; then
  // the live feed from its last id. However the download ends, the feed opens: it reads whatever
  // the download did not.
  const download = new AbortController();
  void downloadHistory(lab, lastId, {
    signal: download.signal,
    silenceMs: SILENCE_MS,
    hello: (hello) => getState().receiveHello(hello) === 'same-database',
    events: receive,
  }).then(() => {
    if (stopped) return;
    if (pending.length) flush();
    open();
  });
  return () => {
    stopped = true;
    download.abort();
    source?.close();
    source = undefined;
    clearTimeout(reopenTimer);
    clearTimeout(silenceTimer);
    if (flushTimer) clearTimeout(flushTimer);
  };
}
