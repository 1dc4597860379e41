import 'server-only';
import { listEvents } from '@/db/events';
import { getPool } from '@/db/pool';
import type { LabInstance } from '@/lib/model/lab-instance';
import { toWire } from '@/lib/model/wire';
import type { Backlog, Send, SseMessage } from './event-stream';
import { getLabHub, labSnapshotMessage } from './lab-hub';

/**
 * One viewer's feed of a lab: `hello` (the id of the lab's oldest event, so a client drops events
 * a reset deleted), its own history after `after`, a snapshot, `caught-up`, then the live events
 * the lab's hub hands every viewer. Returns the cleanup.
 *
 * No gap and no double between history and live: the viewer joins the hub first and holds what
 * the hub hands it while the history is read; then it sends the history and, from then on, only
 * events newer than the last id it sent (ids are commit order, and the hub hands them in order).
 */
export async function startLabFeed(options: {
  lab: LabInstance;
  after: number;
  send: Send;
  close: () => void;
  backlog: Backlog;
}): Promise<() => void> {
  const { lab, after, send, close, backlog } = options;
  let held: SseMessage[] | undefined = [];
  // The history is queued in one go, and a big one takes a slow client a while to read: only what
  // is queued beyond it counts against the viewer (a client that stopped reading is still dropped).
  let caughtUpBacklog = 0;
  let lastSentId = after;
  // The hub's reader may still be behind this viewer's history when the viewer goes live (its read
  // began before the history's): what the viewer already sent is skipped by id.
  const sendOnce = (message: SseMessage) => {
    if (message.id !== undefined) {
      if (message.id <= lastSentId) return;
      lastSentId = message.id;
    }
    send(message);
  };
  const leave = await getLabHub().join(lab, {
    deliver: (message) => (held ? held.push(message) : sendOnce(message)),
    close,
    backlogBytes: () => (held ? 0 : Math.max(0, backlog() - caughtUpBacklog)),
  });
  try {
    send({ event: 'hello', data: { lab: lab.id, firstId: await firstEventId(lab.id) } });
    const history = await listEvents({ lab: lab.id, afterId: after });
    const snapshot = await labSnapshotMessage(lab);
    for (const event of history) sendOnce({ id: event.id, event: 'lab-event', data: toWire(event) });
    send(snapshot);
    send({ event: 'caught-up', data: { lastId: lastSentId } });
    // What the hub delivered meanwhile, in its order. Held snapshots are older than the one just
    // sent; held events up to lastSentId were in the history. A held reset goes on as it is: its
    // boundary drops exactly the events it deleted, whether the history was read before or after it.
    for (const message of held) if (message.event !== 'snapshot') sendOnce(message);
    held = undefined;
    caughtUpBacklog = backlog();
    return leave;
  } catch (error) {
    leave();
    throw error;
  }
}

async function firstEventId(lab: string): Promise<number | null> {
  const { rows } = await getPool().query<{ id: string | null }>('SELECT min(id) AS id FROM events WHERE lab = $1', [
    lab,
  ]);
  return rows[0]?.id == null ? null : Number(rows[0].id);
}
