import 'server-only';

export type SseMessage = { id?: number; event?: string; data: unknown };
export type Send = (message: SseMessage) => void;
/** Bytes written to the stream that the client has not read yet (the network is slower than the feed). */
export type Backlog = () => number;

const HEARTBEAT_MS = 15_000;

// A lab's hub hands one message object to every viewer: it is serialised once, not once per viewer.
const formattedMessages = new WeakMap<SseMessage, string>();

function formatted(message: SseMessage): string {
  let text = formattedMessages.get(message);
  if (text === undefined) {
    const { id, event, data } = message;
    text = `${id === undefined ? '' : `id: ${id}\n`}${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
    formattedMessages.set(message, text);
  }
  return text;
}

/**
 * A Server-Sent Events response. `init(send, close)` starts the feed and returns its cleanup, which
 * runs when the client goes away (the request's signal aborts) or the feed closes the stream.
 * `backlog()` tells a feed how far behind its client is, so that it can drop a client that stopped reading.
 */
export function eventStream(
  signal: AbortSignal,
  init: (send: Send, close: () => void, backlog: Backlog) => Promise<() => void>,
): Response {
  const encoder = new TextEncoder();
  let cleanup: (() => void) | undefined;
  let closed = false;
  let heartbeat: NodeJS.Timeout | undefined;
  let cleanedUp = false;
  // Once, however the stream ends (the feed closes it, the client aborts, the stream is cancelled,
  // or all three): a cleanup run twice would, say, count a private lab's viewer out twice.
  const finish = () => {
    closed = true;
    clearInterval(heartbeat);
    if (cleanedUp || !cleanup) return;
    cleanedUp = true;
    cleanup();
  };
  let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
  // Queued in bytes, with no allowance: desiredSize is then minus the bytes the client has not read.
  const backlog: Backlog = () => -(controllerRef?.desiredSize ?? 0);
  const stream = new ReadableStream<Uint8Array>(
    {
      async start(controller) {
        controllerRef = controller;
        const close = () => {
          if (closed) return;
          finish();
          try {
            controller.close();
          } catch {
            // already closed by the client
          }
        };
        const write = (text: string) => {
          if (!closed) controller.enqueue(encoder.encode(text));
        };
        const send: Send = (message) => write(formatted(message));
        heartbeat = setInterval(() => write(': heartbeat\n\n'), HEARTBEAT_MS);
        signal.addEventListener('abort', close, { once: true });
        try {
          cleanup = await init(send, close, backlog);
          if (closed) finish();
        } catch (error) {
          console.error('[sse] the feed could not start:', error);
          write(`event: failure\ndata: ${JSON.stringify({ message: 'the live feed could not start' })}\n\n`);
          close();
        }
      },
      cancel() {
        finish();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
  return new Response(stream, {
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    },
  });
}
