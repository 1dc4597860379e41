import { FencingError } from '@/lib/model/core/errors';
import { canView, credentialsFromCookieHeader } from '@/lib/server/access';
import { clientAddressOfRequest } from '@/lib/server/client-address';
import { answeringErrors, noSuchLab } from '@/lib/server/error-answers';
import { getFeedSlots } from '@/lib/server/feed-slots';
import { findFeedLab } from '@/lib/server/lab-feed';
import { labHistoryBody } from '@/lib/server/lab-history';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * A lab's history after ?after= (lib/server/lab-history.ts), for a page that opens; the page then
 * follows the lab on its live feed (../events) from the last id it read. Who may read it, and
 * how many at once from one address, are the live feed's rules: a download holds one of its slots.
 * Anything it cannot serve now is a plain error (lib/server/error-answers.ts): the page then reads
 * the history from the live feed.
 */
export const GET = answeringErrors(
  'history',
  async (request: Request, { params }: { params: Promise<{ lab: string }> }): Promise<Response> => {
    const { lab: labId } = await params;
    const raw = new URL(request.url).searchParams.get('after') ?? '0';
    if (!/^\d{1,15}$/.test(raw)) throw new FencingError('invalid_input', 'after must be a whole number');

    const slot = getFeedSlots().take(clientAddressOfRequest(request));
    if ('refused' in slot) throw new FencingError('rate_limited', 'too many feeds are open');
    try {
      const found = await findFeedLab(labId).catch((error: unknown) => {
        throw new FencingError('db_unavailable', 'the database is not reachable', { cause: error });
      });
      // Someone else's private lab is answered exactly like a lab that does not exist.
      if (!found || !canView(found, credentialsFromCookieHeader(request.headers.get('cookie')))) {
        throw noSuchLab(labId);
      }
      request.signal.addEventListener('abort', slot.release, { once: true });
      return new Response(labHistoryBody(found, Number(raw), slot.release), {
        headers: { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' },
      });
    } catch (error) {
      slot.release();
      throw error;
    }
  },
);
