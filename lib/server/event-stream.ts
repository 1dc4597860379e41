import 'server-only';

export type SseMessage = { id?: number; event?: string; data: unknown };
export type Send = (message: SseMessage) => void;

const HEARTBEAT_MS = 15_000;

/**
 * A Server-Sent Events response. `init(send, close)` starts the feed and returns its cleanup, which
 * runs when the client goes away (the request's signal aborts) or the feed closes the stream.
 */
export function eventStream(
  signal: AbortSignal,
  init: (send: Send, close: () => void) => Promise<() => void>,
): Response {
  const encoder = new TextEncoder();
  let cleanup: (() => void) | undefined;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const close = () => {
        if (closed) return;
        closed = true;
        clearInterval(heartbeat);
        cleanup?.();
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      const write = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const send: Send = ({ id, event, data }) =>
        write(
          `${id === undefined ? '' : `id: ${id}\n`}${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`,
        );
      const heartbeat = setInterval(() => write(': heartbeat\n\n'), HEARTBEAT_MS);
      signal.addEventListener('abort', close, { once: true });
      try {
        cleanup = await init(send, close);
        if (closed) cleanup();
      } catch (error) {
        console.error('[sse] the feed could not start:', error);
        write(`event: failure\ndata: ${JSON.stringify({ message: 'the live feed could not start' })}\n\n`);
        close();
      }
    },
    cancel() {
      closed = true;
      cleanup?.();
    },
  });
  return new Response(stream, {
    headers: {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    },
  });
}
