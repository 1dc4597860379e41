import { GET } from '@/app/api/labs/[lab]/events/route';

/** A lab's live feed read the way a browser's EventSource reads it, straight from the route handler. */

export type SseEvent = { id?: number; event: string; data: Record<string, unknown> };

export function openLabFeed(lab: string, lastEventId?: number) {
  const abort = new AbortController();
  const request = new Request(`http://lab.test/api/labs/${lab}/events`, {
    headers: lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) },
    signal: abort.signal,
  });
  const response = GET(request, { params: Promise.resolve({ lab }) });
  const received: SseEvent[] = [];
  let ended = false;
  const reading = (async () => {
    const body = (await response).body;
    if (!body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = body.getReader();
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      buffer += decoder.decode(chunk, { stream: true });
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
        received.push({
          event: fields.event ?? 'message',
          data: JSON.parse(fields.data),
          ...(fields.id ? { id: Number(fields.id) } : {}),
        });
      }
    }
  })()
    .catch(() => undefined)
    .finally(() => {
      ended = true;
    });

  return {
    /** The route handler's response (its status, for a feed that was refused). */
    response,
    /** Everything received so far, in order. */
    received,
    /** The ids of the lab events the client holds now: a `reset` drops those up to its `upTo`, as the browser's store does. */
    eventIds: () => {
      let ids: number[] = [];
      for (const m of received) {
        if (m.event === 'lab-event') ids.push(m.id as number);
        if (m.event === 'reset') {
          const upTo = (m.data as { upTo?: number }).upTo;
          ids = upTo === undefined ? [] : ids.filter((id) => id > upTo);
        }
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

/** Polls `check` until it holds; generous by default, the machine is slow and shared. */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
