import 'server-only';
import type pg from 'pg';
import { singleton } from '../lib/os/process-singletons';
import {
  CLIENT_RUNS_CHANNEL,
  DroppedNotesLog,
  EVENTS_CHANNEL,
  type EventNote,
  eventNoteOf,
  GUARD_ATTEMPTS_CHANNEL,
} from './notification-notes';
import { newClient } from './pool';

/**
 * What NOTIFY fencing_events carries: the new event's id, or a lab that was reset (every event of
 * it up to `upTo` deleted). NOTIFY fencing_guard_attempts (0034) becomes a note of no lab ('') with
 * the new guard attempt's id, and NOTIFY fencing_client_runs (0052) one with a client run's that
 * started or ended, for the class wall. Parsed in db/notification-notes.ts.
 */
export type { EventNote };

type Subscriber = { onNote: (note: EventNote) => void; onClose: () => void };

/**
 * One LISTEN connection for the whole server process (lib/os/process-singletons.ts), fanned out to every
 * open event stream. When the connection dies every stream is closed, so that browsers reconnect
 * (with Last-Event-ID) to a fresh one instead of waiting on a dead feed.
 */
class EventFeed {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly subscribers = new Set<Subscriber>();
  private readonly droppedNotes = new DroppedNotesLog('sse');

  /** How many feeds listen now (for tests: a feed that went away must not stay subscribed). */
  get subscriberCount(): number {
    return this.subscribers.size;
  }

  async subscribe(subscriber: Subscriber): Promise<() => void> {
    await this.connect();
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      // keepAlive: a connection that hangs half-open (a remote DATABASE_URL, a NAT) is noticed and
      // dropped, so that feeds reconnect instead of showing "live" with no events coming.
      // Probed after 10 s of silence, not the system's default of 2 hours.
      const client = newClient(undefined, { keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
      // pg calls this inside its protocol parser: a throw here would wedge the connection for
      // good (every later message piles up unread), so nothing a payload holds may throw.
      client.on('notification', (message) => {
        const note = eventNoteOf(message.channel, message.payload);
        if (!note) return this.droppedNotes.dropped(message.channel, message.payload);
        for (const subscriber of this.subscribers) {
          try {
            subscriber.onNote(note);
          } catch (error) {
            // One feed's bug must not keep the note from the others, nor wedge the connection.
            console.error('[sse] a feed failed on a notification:', error);
          }
        }
      });
      const dead = () => this.drop(client);
      client.on('error', dead);
      client.on('end', dead);
      try {
        await client.connect();
        await client.query(`LISTEN ${EVENTS_CHANNEL}`);
        await client.query(`LISTEN ${GUARD_ATTEMPTS_CHANNEL}`);
        await client.query(`LISTEN ${CLIENT_RUNS_CHANNEL}`);
      } catch (error) {
        this.connecting = undefined;
        // The connection that failed has nothing to end; the first error is rethrown.
        await client.end().catch(() => undefined);
        throw error;
      }
      this.client = client;
      this.connecting = undefined;
      return client;
    })();
    return this.connecting;
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    const subscribers = [...this.subscribers];
    this.subscribers.clear();
    for (const subscriber of subscribers) subscriber.onClose();
    // The connection is closing because it failed: nothing to end cleanly.
    void client.end().catch(() => undefined);
  }
}

export const getEventFeed = (): EventFeed => singleton('db.event-feed', () => new EventFeed());
