import { streamWall } from '@/lib/server/class-wall';
import { clientAddressOfRequest } from '@/lib/server/client-address';
import { answeringErrors } from '@/lib/server/error-answers';
import { eventStream, RECONNECT_MS, retryLater } from '@/lib/server/event-stream';
import { getFeedSlots } from '@/lib/server/feed-slots';
import { readCredentials } from '@/lib/server/request-credentials';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const BUSY_RETRY_MS = 10_000;

/**
 * The class wall's live feed (issue 15 part 2): the guard attempts the caller may see (the trainer:
 * everyone's; anyone else: their own), then each new one as it commits. What it cannot serve yet is
 * a 200 stream that says why and ends, which EventSource retries by itself, as the lab feed does.
 */
export const GET = answeringErrors('class wall', async (request: Request): Promise<Response> => {
  const slot = getFeedSlots().take(clientAddressOfRequest(request));
  if ('refused' in slot) return retryLater('busy', 'too many live feeds are open; retrying', BUSY_RETRY_MS);
  // The database is away: answered just below as a feed that says so and retries.
  const credentials = await readCredentials().catch(() => undefined);
  if (!credentials) {
    slot.release();
    return retryLater('unavailable', 'the database is not reachable; retrying', RECONNECT_MS * 2);
  }
  return eventStream(request.signal, async (send, close) => {
    try {
      const stop = await streamWall(credentials, send, close);
      return () => {
        stop();
        slot.release();
      };
    } catch {
      // The wall could not start (the database went): the stream ends and EventSource retries by itself.
      slot.release();
      close();
      return () => undefined;
    }
  });
});
