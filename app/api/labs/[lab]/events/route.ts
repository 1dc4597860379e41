import { findLab, type LabRecord } from '@/db/labs';
import { getPrivateLabs } from '@/lib/lab/private-labs';
import { canView, credentialsFromCookieHeader } from '@/lib/server/access';
import { eventStream } from '@/lib/server/event-stream';
import { startLabFeed } from '@/lib/server/lab-feed';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The lab's live feed: first a `hello` (the id of the lab's oldest event, so a client drops events a
 * reset deleted), then the history after Last-Event-ID (or ?after=) and `caught-up`, then each new
 * event as it commits, with its id, and `snapshot`s of the row, the lease and the workers.
 * Every viewer of a lab is served by one shared reader (lib/server/lab-hub.ts): viewers cost sends,
 * not queries.
 */
export async function GET(request: Request, { params }: { params: Promise<{ lab: string }> }) {
  const { lab: labId } = await params;
  const found = await findLab(labId);
  // Someone else's private lab is reported exactly like a lab that does not exist.
  if (!found || !canView(found, credentialsFromCookieHeader(request.headers.get('cookie')))) {
    return Response.json({ error: `no lab ${JSON.stringify(labId)}` }, { status: 404 });
  }
  const lab: LabRecord = found;
  const after = parseAfter(request.headers.get('last-event-id') ?? new URL(request.url).searchParams.get('after'));
  if (after === undefined) return Response.json({ error: 'Last-Event-ID must be a whole number' }, { status: 400 });

  return eventStream(request.signal, async (send, close, backlog) => {
    const unwatch = lab.visibility === 'private' ? getPrivateLabs().watch(lab) : undefined;
    try {
      const stop = await startLabFeed({ lab, after, send, close, backlog });
      return () => {
        stop();
        unwatch?.();
      };
    } catch (error) {
      unwatch?.();
      throw error;
    }
  });
}

function parseAfter(raw: string | null): number | undefined {
  if (raw === null || raw === '') return 0;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}
