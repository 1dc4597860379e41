import { fromWirePage, type WirePage } from '../model/core/wire-page';

/** A lab's live feed, read off an SSE response body the way EventSource reads it (tests, benchmarks). */

export type SseEvent = { id?: number; event: string; data: Record<string, unknown> };

/**
 * The messages of an SSE body as they arrive: comments and heartbeats skipped, `data` parsed, and a
 * history page (`lab-events`) split into the `lab-event`s it holds, each with its id.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf('\n\n');
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((line) => !line.startsWith(':'))
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
      );
      if (fields.data === undefined) continue;
      // A page of the history (`lab-events`, lib/model/core/wire-page.ts) is read as the events it holds, one by one.
      if (fields.event === 'lab-events') {
        for (const event of fromWirePage(JSON.parse(fields.data) as WirePage)) {
          yield { event: 'lab-event', data: event, id: event.id };
        }
        continue;
      }
      yield {
        event: fields.event ?? 'message',
        data: JSON.parse(fields.data),
        ...(fields.id ? { id: Number(fields.id) } : {}),
      };
    }
  }
}

/** The event ids a client keeps after a `reset`: those past its boundary (none, without one). */
export function idsAfterReset(ids: number[], reset: SseEvent): number[] {
  const upTo = (reset.data as { upTo?: number }).upTo;
  return upTo === undefined ? [] : ids.filter((id) => id > upTo);
}
