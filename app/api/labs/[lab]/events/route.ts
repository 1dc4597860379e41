import { getEventFeed } from '@/db/event-feed';
import { listEvents } from '@/db/events';
import { readLabSnapshot } from '@/db/lab-snapshot';
import { findLab, type LabRecord } from '@/db/labs';
import { getPool } from '@/db/pool';
import { chaosRunOf } from '@/lib/chaos/chaos-runs';
import { getPrivateLabs } from '@/lib/lab/private-labs';
import { listLabWorkers } from '@/lib/lab/remote-workers';
import { toWire } from '@/lib/model/wire';
import { canView, credentialsFromCookieHeader } from '@/lib/server/access';
import { eventStream, type Send } from '@/lib/server/event-stream';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const SNAPSHOT_EVERY_MS = 1_000;

/**
 * The lab's live feed: first a `hello` (the id of the lab's oldest event, so a client drops events a
 * reset deleted), then the history after Last-Event-ID (or ?after=) and `caught-up`, then each new
 * event as it commits, with its id, and `snapshot`s of the row, the lease and the workers.
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

  return eventStream(request.signal, async (send, close) => {
    let sent = after;
    let caughtUp = false;
    let resetPending = false;
    let pumping: Promise<void> | undefined;
    let pumpAgain = false;
    // Coalesced: one catch-up query at a time, re-run if notes arrived meanwhile. Reading
    // `id > sent` in id (= commit) order means nothing is skipped or sent twice.
    const pump = (): void => {
      if (pumping) {
        pumpAgain = true;
        return;
      }
      pumping = (async () => {
        do {
          pumpAgain = false;
          // In line with the events: whatever a read begun before the reset returned goes out first,
          // then `reset`, then what came after.
          if (resetPending) {
            resetPending = false;
            send({ event: 'reset', data: { lab: lab.id } });
          }
          for (const event of await listEvents({ lab: lab.id, afterId: sent })) {
            send({ id: event.id, event: 'lab-event', data: toWire(event) });
            sent = event.id;
          }
          await sendSnapshot(lab, send);
          if (!caughtUp) {
            // The history is out: from here on, every event is news (the browser draws each at once).
            caughtUp = true;
            send({ event: 'caught-up', data: { lastId: sent } });
          }
        } while (pumpAgain);
      })()
        .catch((error: unknown) => {
          console.error('[sse] catch-up failed:', error);
          close();
        })
        .finally(() => {
          pumping = undefined;
        });
    };

    const unsubscribe = await getEventFeed().subscribe({
      onNote: (note) => {
        if (note.lab !== lab.id) return;
        if (note.reset) resetPending = true;
        pump();
      },
      onClose: close,
    });
    send({ event: 'hello', data: { lab: lab.id, firstId: await firstEventId(lab.id) } });
    const unwatch = lab.visibility === 'private' ? getPrivateLabs().watch(lab) : undefined;
    pump();
    const ticker = setInterval(() => {
      if (!pumping) void sendSnapshot(lab, send).catch(() => undefined);
    }, SNAPSHOT_EVERY_MS);
    return () => {
      clearInterval(ticker);
      unsubscribe();
      unwatch?.();
    };
  });
}

async function sendSnapshot(lab: LabRecord, send: Send): Promise<void> {
  const [snapshot, workers] = await Promise.all([readLabSnapshot(lab), listLabWorkers(lab)]);
  const chaos = chaosRunOf(lab.id);
  send({ event: 'snapshot', data: { ...snapshot, workers, ...(chaos ? { chaos } : {}) } });
}

async function firstEventId(lab: string): Promise<number | null> {
  const { rows } = await getPool().query<{ id: string | null }>('SELECT min(id) AS id FROM events WHERE lab = $1', [
    lab,
  ]);
  return rows[0]?.id == null ? null : Number(rows[0].id);
}

function parseAfter(raw: string | null): number | undefined {
  if (raw === null || raw === '') return 0;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}
