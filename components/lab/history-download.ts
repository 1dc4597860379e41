import type { WireEvent } from '@/lib/model/core/wire';
import { fromWirePage, type WirePage } from '@/lib/model/core/wire-page';

/*
 * A lab's history read in one download (app/api/labs/[lab]/history), before the page opens its
 * live feed: a browser's fetch reads the bytes in about a third of the time its EventSource takes,
 * and the server starts the download while the page's scripts still load (the preload of
 * `historyUrl`). Newline-delimited JSON: a hello, then pages of events.
 */

export type HistoryHello = { firstId: number | null; database: string };

/** The one address of a lab's history download: the page's preload and its fetch must match exactly. */
export function historyUrl(lab: string, after: number): string {
  return `/api/labs/${encodeURIComponent(lab)}/history?after=${after}`;
}

/**
 * Reads the history after `after`: `hello` first (false from it stops the download), then `events`
 * for each page, in id order. Resolves true when it read to the end; false when the server would not
 * serve it, the download broke off, said nothing for `silenceMs`, or `signal` aborted it (what was
 * handed on is whole pages: the live feed resumes after the last id the page holds).
 */
export async function downloadHistory(
  lab: string,
  after: number,
  options: {
    signal: AbortSignal;
    silenceMs: number;
    hello: (hello: HistoryHello) => boolean;
    events: (events: WireEvent[]) => void;
  },
): Promise<boolean> {
  const handlers = options;
  const abort = new AbortController();
  const stop = () => abort.abort();
  options.signal.addEventListener('abort', stop, { once: true });
  let silence = setTimeout(stop, options.silenceMs);
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(stop, options.silenceMs);
  };
  try {
    const response = await fetch(historyUrl(lab, after), { signal: abort.signal });
    heard();
    if (!response.ok || !response.body) return false;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let parts: string[] = [];
    let helloRead = false;
    const line = (text: string) => {
      if (helloRead) return handlers.events(fromWirePage(JSON.parse(text) as WirePage));
      helloRead = true;
      if (!handlers.hello(JSON.parse(text) as HistoryHello)) throw new Error('the history changed databases');
    };
    for (;;) {
      const { done, value } = await reader.read();
      heard();
      if (done) return helloRead && parts.length === 0;
      let from = 0;
      for (let end = value.indexOf('\n'); end >= 0; end = value.indexOf('\n', from)) {
        parts.push(value.slice(from, end));
        line(parts.join(''));
        parts = [];
        from = end + 1;
      }
      if (from < value.length) parts.push(value.slice(from));
    }
  } catch {
    // Broken off, unreadable or aborted: false, and the page reads the history from the live feed.
    return false;
  } finally {
    clearTimeout(silence);
    options.signal.removeEventListener('abort', stop);
  }
}
