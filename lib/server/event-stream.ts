import 'server-only';

/**
 * One message: `data` is serialised here; `json` is data already serialised (a history page that
 * PostgreSQL wrote), sent as it is. It must hold no line break (one `data:` line).
 */
export type SseMessage = { id?: number; event?: string } & ({ data: unknown } | { json: string });
export type Send = (message: SseMessage) => void;
/** Bytes written to the stream that the client has not read yet (the network is slower than the feed). */
export type Backlog = () => number;
/** Resolves once the client has read everything written so far (true), or the stream has ended (false). */
export type Drained = () => Promise<boolean>;

const HEARTBEAT_MS = 15_000;
/**
 * How long a browser waits before it reconnects a stream that ended (the `retry:` field). It
 * applies only to a 200 event stream that closes: after any other answer a browser gives up for
 * good, which is why every answer this server cannot serve yet is such a stream (retryLater).
 */
export const RECONNECT_MS = 1_000;

// A lab's hub hands one message object to every viewer: it is serialised once, not once per viewer.
const formattedMessages = new WeakMap<SseMessage, string>();

function formatted(message: SseMessage): string {
  let text = formattedMessages.get(message);
  if (text === undefined) {
    const { id, event } = message;
    const data = 'json' in message ? message.json : JSON.stringify(message.data);
    // A line break would end the data early and the rest would be read as other fields.
    if ('json' in message && data.includes('\n')) throw new Error('an SSE message was given JSON with a line break');
    text = `${id === undefined ? '' : `id: ${id}\n`}${event ? `event: ${event}\n` : ''}data: ${data}\n\n`;
    formattedMessages.set(message, text);
  }
  return text;
}

/**
 * Every stream open now, by its close. A server told to stop (SIGTERM from the launcher, SIGINT)
 * ends them: Next's graceful close waits for every request to finish, and a live feed never does,
 * so a server with a browser open would wait out the launcher's grace and be killed with its
 * workers (which then could not record their own end). Ended, each browser retries by itself.
 */
const openStreams = new Set<() => void>();
let endsStreamsOnStop = false;

function endStreamsOnStop(): void {
  if (endsStreamsOnStop) return;
  endsStreamsOnStop = true;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // Next's own handler (start-server.js) closes the server and exits once its requests are done.
    process.once(signal, endOpenStreams);
  }
}

/** Ends every event stream open now, as a server told to stop does. */
export function endOpenStreams(): void {
  for (const close of [...openStreams]) close();
}

// `Connection: close`: a stream ended (by its feed, or because the server stops) takes its socket with
// it, which a stopping server would otherwise keep open as an idle keep-alive until its timeout.
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'close',
  'X-Accel-Buffering': 'no',
} as const;

/**
 * A Server-Sent Events response. `init(send, close, backlog, drained)` starts the feed and returns
 * its cleanup, which runs when the client goes away (the request's signal aborts) or the feed
 * closes the stream. `backlog()` tells a feed how far behind its client is, so that it can drop a
 * client that stopped reading; `drained()` lets it write a long history only as the client reads.
 */
export function eventStream(
  signal: AbortSignal,
  init: (send: Send, close: () => void, backlog: Backlog, drained: Drained) => Promise<() => void>,
): Response {
  const encoder = new TextEncoder();
  let cleanup: (() => void) | undefined;
  let closed = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let cleanedUp = false;
  let waiters: ((open: boolean) => void)[] = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    for (const resolve of woken) resolve(!closed);
  };
  // Once, however the stream ends (the feed closes it, the client aborts, the stream is cancelled,
  // or all three): a cleanup run twice would, say, count a private lab's viewer out twice.
  const finish = () => {
    closed = true;
    openStreams.delete(closeStream);
    clearInterval(heartbeat);
    wake();
    if (cleanedUp || !cleanup) return;
    cleanedUp = true;
    cleanup();
  };
  let closeStream: () => void = () => undefined;
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
  // What was written in this task, enqueued as one chunk at its end: a history page of thousands of
  // messages is one write to the socket, not thousands (each costs a stream read and a syscall).
  let unflushed: string[] = [];
  let unflushedLength = 0;
  // Queued in bytes, with no allowance: desiredSize is then minus the bytes the client has not read
  // (plus what this task wrote, counted in characters).
  const backlog: Backlog = () => -(controllerRef?.desiredSize ?? 0) + unflushedLength;
  const drained: Drained = () =>
    closed || backlog() <= 0 ? Promise.resolve(!closed) : new Promise<boolean>((resolve) => waiters.push(resolve));
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controllerRef = controller;
        const flush = () => {
          const texts = unflushed;
          unflushed = [];
          unflushedLength = 0;
          if (!closed && texts.length) controller.enqueue(encoder.encode(texts.join('')));
        };
        const write = (text: string) => {
          if (closed) return;
          if (!unflushed.length) queueMicrotask(flush);
          unflushed.push(text);
          unflushedLength += text.length;
        };
        const close = () => {
          if (closed) return;
          flush();
          finish();
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        const send: Send = (message) => write(formatted(message));
        closeStream = close;
        openStreams.add(close);
        endStreamsOnStop();
        write(`retry: ${RECONNECT_MS}\n\n`);
        heartbeat = setInterval(() => write(': heartbeat\n\n'), HEARTBEAT_MS);
        signal.addEventListener('abort', close, { once: true });
        // Not awaited: the stream calls pull (which wakes `drained`) only once start has returned.
        void init(send, close, backlog, drained).then(
          (done) => {
            cleanup = done;
            if (closed) finish();
          },
          (error: unknown) => {
            console.error('[sse] the feed could not start:', error);
            write(`event: failure\ndata: ${JSON.stringify({ message: 'the live feed could not start' })}\n\n`);
            close();
          },
        );
      },
      // The client read everything queued and waits for more.
      pull() {
        wake();
      },
      cancel() {
        finish();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
  return new Response(stream, { headers: SSE_HEADERS });
}

/**
 * An answer to a feed this server cannot serve yet (the database is away, too many feeds): a 200
 * event stream that says why in one `event` and ends, so that the browser's EventSource reconnects
 * by itself after `retryMs` (a 5xx or 429 would make it give up for good).
 */
export function retryLater(event: string, message: string, retryMs: number): Response {
  const body = `retry: ${Math.round(retryMs)}\n\nevent: ${event}\ndata: ${JSON.stringify({ message, retryMs })}\n\n`;
  return new Response(body, { headers: SSE_HEADERS });
}
