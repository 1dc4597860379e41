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
    backlogBytes: backlog,
  });
  try {
    send({ event: 'hello', data: { lab: lab.id, firstId: await firstEventId(lab.id) } });
    let afterId = after;
    for (;;) {
      const history = await listEvents({ lab: lab.id, afterId });
      const snapshot = await labSnapshotMessage(lab);
      const reset = held.findLastIndex((message) => message.event === 'reset');
      if (reset >= 0) {
        // The lab was reset while its history was read, before or after the read: the client
        // starts over with the lab's events as they are now.
        send({ event: 'reset', data: { lab: lab.id } });
        held = held.slice(reset + 1);
        afterId = 0;
        continue;
      }
      lastSentId = afterId;
      for (const event of history) sendOnce({ id: event.id, event: 'lab-event', data: toWire(event) });
      send(snapshot);
      send({ event: 'caught-up', data: { lastId: lastSentId } });
      // Held snapshots are older than the one just sent; held events up to lastSentId were in the history.
      for (const message of held) if (message.event !== 'snapshot') sendOnce(message);
      held = undefined;
      return leave;
    }
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
