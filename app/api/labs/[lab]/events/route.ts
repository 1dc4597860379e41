import { feedOutageLog } from '@/lib/log/outage-log';
import { FencingError } from '@/lib/model/core/errors';
import { canView, credentialsFromCookieHeader } from '@/lib/server/access';
import { clientAddressOfRequest } from '@/lib/server/client-address';
import { answeringErrors, noSuchLab } from '@/lib/server/error-answers';
import { eventStream, RECONNECT_MS, retryLater } from '@/lib/server/event-stream';
import { getFeedSlots } from '@/lib/server/feed-slots';
import { findFeedLab, startLabFeed } from '@/lib/server/lab-feed';
import { getPrivateLabs } from '@/lib/server/private-labs';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** A browser refused for too many feeds tries again after about this long. */
const BUSY_RETRY_MS = 10_000;
/** While the database is away, browsers try again every 1 to 3 s (spread, so they do not all come at once). */
const UNAVAILABLE_RETRY_MS = { min: RECONNECT_MS, spread: 2_000 };

/**
 * The lab's live feed: first a `hello` (the database's identity and the id of the lab's oldest
 * event), then the history after Last-Event-ID (or ?after=) a page at a time and `caught-up`, then
 * each new event as it commits, with its id, and `snapshot`s of the row, the lease and the workers.
 * Every viewer of a lab is served by one shared reader (lib/server/lab-hub.ts): viewers cost sends,
 * not queries.
 *
 * Whatever it cannot serve yet (the database is away, too many feeds open) it answers with a 200
 * stream that says why and ends, which a browser's EventSource retries by itself: after a 5xx it
 * would give up for good. Only what will never change is final, answered by
 * lib/server/error-answers.ts: a lab that does not exist (404) and a malformed Last-Event-ID (400).
 */
export const GET = answeringErrors('feed', feed);

async function feed(request: Request, { params }: { params: Promise<{ lab: string }> }): Promise<Response> {
  const { lab: labId } = await params;
  const after = parseAfter(request.headers.get('last-event-id') ?? new URL(request.url).searchParams.get('after'));
  if (after === undefined) throw new FencingError('invalid_input', 'Last-Event-ID must be a whole number');

  const slot = getFeedSlots().take(clientAddressOfRequest(request));
  if ('refused' in slot) {
    const why =
      slot.refused === 'address'
        ? 'too many live feeds are open from this address'
        : 'the server has as many live feeds open as it serves';
    return retryLater('busy', `${why}; retrying`, BUSY_RETRY_MS * (1 + Math.random() / 2));
  }

  let found: Awaited<ReturnType<typeof findFeedLab>>;
  try {
    found = await findFeedLab(labId);
  } catch (error) {
    slot.release();
    feedOutageLog().failed(error);
    return retryLater(
      'unavailable',
      'the database is not reachable; retrying',
      UNAVAILABLE_RETRY_MS.min + Math.random() * UNAVAILABLE_RETRY_MS.spread,
    );
  }
  // Someone else's private lab is answered exactly like a lab that does not exist.
  if (!found || !canView(found, credentialsFromCookieHeader(request.headers.get('cookie')))) {
    slot.release();
    throw noSuchLab(labId);
  }
  const lab = found;

  return eventStream(request.signal, async (send, close, backlog, drained) => {
    const unwatch = getPrivateLabs().watch(lab);
    try {
      const stop = await startLabFeed({ lab, after, send, close, backlog, drained });
      feedOutageLog().succeeded();
      return () => {
        stop();
        unwatch?.();
        slot.release();
      };
    } catch (error) {
      unwatch?.();
      slot.release();
      // The stream says why and ends; the browser reconnects from the last id it holds.
      feedOutageLog().failed(error);
      send({ event: 'unavailable', data: { message: 'the live feed could not start; retrying' } });
      close();
      return () => undefined;
    }
  });
}

function parseAfter(raw: string | null): number | undefined {
  if (raw === null || raw === '') return 0;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}
