import { canView, credentialsFromCookieHeader } from '@/lib/server/access';
import { clientAddressOfRequest } from '@/lib/server/client-address';
import { getFeedSlots } from '@/lib/server/feed-slots';
import { findFeedLab } from '@/lib/server/lab-feed';
import { labHistoryBody } from '@/lib/server/lab-history';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * A lab's history after ?after= (lib/server/lab-history.ts), for a page that opens; the page then
 * follows the lab on its live feed (../events) from the last id it read. Who may read it, and
 * how many at once from one address, are the live feed's rules: a download holds one of its slots.
 * Anything it cannot serve now is a plain error: the page then reads the history from the live feed.
 */
export async function GET(request: Request, { params }: { params: Promise<{ lab: string }> }) {
  const { lab: labId } = await params;
  const raw = new URL(request.url).searchParams.get('after') ?? '0';
  if (!/^\d{1,15}$/.test(raw)) return Response.json({ error: 'after must be a whole number' }, { status: 400 });

  const slot = getFeedSlots().take(clientAddressOfRequest(request));
  if ('refused' in slot) return Response.json({ error: 'too many feeds are open' }, { status: 429 });
  let found: Awaited<ReturnType<typeof findFeedLab>>;
  try {
    found = await findFeedLab(labId);
  } catch {
    slot.release();
    return Response.json({ error: 'the database is not reachable' }, { status: 503 });
  }
  // Someone else's private lab is reported exactly like a lab that does not exist.
  if (!found || !canView(found, credentialsFromCookieHeader(request.headers.get('cookie')))) {
    slot.release();
    return Response.json({ error: `no lab ${JSON.stringify(labId)}` }, { status: 404 });
  }
  request.signal.addEventListener('abort', slot.release, { once: true });
  return new Response(labHistoryBody(found, Number(raw), slot.release), {
    headers: { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store' },
  });
}
