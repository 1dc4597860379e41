import 'server-only';
import { getEventFeed } from '@/db/event-feed';
import { eventIdRange, listEvents } from '@/db/events';
import { getFeedPool } from '@/db/feed-pool';
import { readLabSnapshot } from '@/db/lab-snapshot';
import { readRunPolls } from '@/db/polls';
import type { Queryable } from '@/db/pool';
import { chaosRunOf } from '@/lib/chaos/chaos-runs';
import { toWire } from '@/lib/model/core/wire';
import type { LabInstance } from '@/lib/model/lab/lab-instance';
import { getSupervisor } from '@/lib/supervisor/supervisor';
import { feedOutageLog } from '../log/outage-log';
import { singleton } from '../os/process-singletons';
import type { SseMessage } from './event-stream';

const SNAPSHOT_EVERY_MS = 1_000;
/** Events the reader fetches per query; a longer run of new events takes several. */
const READ_EVENTS_PER_QUERY = 1_000;
/**
 * How far a viewer may fall behind (bytes its client has not read) before it is dropped. A viewer
 * dropped this way loses nothing: its EventSource reconnects with Last-Event-ID and the route sends
 * it everything after that id from the database. Buffering without a bound instead would let one
 * stalled laptop grow the server's memory for the whole session.
 */
export const MAX_VIEWER_BACKLOG_BYTES = 2 * 1024 * 1024;

/** One open feed, as the hub sees it. */
export type HubViewer = {
  deliver: (message: SseMessage) => void;
  /** Ends the viewer's stream (its browser reconnects). */
  close: () => void;
  /** Bytes delivered that the viewer's client has not read yet. */
  backlogBytes: () => number;
};

/**
 * Everything one lab's viewers share: one subscription to the event feed, one reader that fetches
 * each new event once (`id > last read`, in id order, which is commit order: 0002_events.sql) and
 * hands it to every viewer, and one snapshot a second. Viewers cost a send each, not queries.
 */
class LabChannel {
  /** Every channel with a timer running, whether or not its hub still lists it (for tests). */
  static readonly ticking = new Set<LabChannel>();
  readonly viewers = new Set<HubViewer>();
  readonly ready: Promise<void>;
  private lastId = 0;
  private started = false;
  private stopped = false;
  private notedBeforeStart = false;
  /** A reset noted and not yet sent on: the boundary it carries (every event up to it deleted). */
  private resetPending: { upTo?: number } | undefined;
  private pumping = false;
  private pumpAgain = false;
  private ticker: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly lab: LabInstance,
    private readonly onDead: () => void,
  ) {
    this.ready = this.start();
  }

  private async start(): Promise<void> {
    // Subscribed before reading where the history ends: an event committed in between is both
    // noted and newer than lastId, so it is read.
    const unsubscribe = await getEventFeed().subscribe({
      onNote: (note) => {
        if (note.lab !== this.lab.id) return;
        if (note.reset) this.resetPending = { upTo: Math.max(note.upTo ?? 0, this.resetPending?.upTo ?? 0) };
        this.pump();
      },
      onClose: () => this.closeAll(),
    });
    this.unsubscribe = unsubscribe;
    if (this.stopped) return unsubscribe();
    this.lastId = (await eventIdRange(this.lab.id, getFeedPool())).last ?? 0;
    if (this.stopped) return;
    this.started = true;
    // Through the reader, not beside it: snapshots go out one at a time, in order, after the
    // events they may show the effect of, and never pile up while the database is slow.
    this.ticker = setInterval(() => this.pump(), SNAPSHOT_EVERY_MS);
    LabChannel.ticking.add(this);
    if (this.notedBeforeStart || this.resetPending) this.pump();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.ticker);
    this.ticker = undefined;
    LabChannel.ticking.delete(this);
    this.unsubscribe?.();
  }

  /** Whether the channel still runs a timer (for tests: a lab nobody watches costs nothing). */
  get ticking(): boolean {
    return this.ticker !== undefined;
  }

  /** Coalesced: one read at a time, run again if notes arrived meanwhile. */
  private pump(): void {
    if (!this.started) {
      this.notedBeforeStart = true;
      return;
    }
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    (async () => {
      do {
        this.pumpAgain = false;
        // The reset carries its boundary, so where it falls among the events does not matter: a
        // read begun before the reset may return events from after it, and they stay.
        if (this.resetPending) {
          const upTo = this.resetPending.upTo ?? 0;
          this.resetPending = undefined;
          // A notification is a hint, not a fact: any session may NOTIFY (a worker's included). The
          // viewers drop the history up to the boundary only once the database shows it gone.
          const { first } = await eventIdRange(this.lab.id, getFeedPool());
          if (this.stopped) return;
          if (first === null || first > upTo) this.broadcast({ event: 'reset', data: { lab: this.lab.id, upTo } });
        }
        const events = await listEvents(
          { lab: this.lab.id, afterId: this.lastId, limit: READ_EVENTS_PER_QUERY },
          getFeedPool(),
        );
        if (this.stopped) return;
        if (events.length === READ_EVENTS_PER_QUERY) this.pumpAgain = true;
        for (const event of events) {
          this.broadcast({ id: event.id, event: 'lab-event', data: toWire(event) });
          this.lastId = event.id;
        }
        // A failed snapshot is skipped (the next comes within a second); only a failed read of
        // the events, which would leave a gap, closes the viewers so that they catch up anew.
        await this.sendSnapshot().catch((error: unknown) => feedOutageLog().failed(error));
      } while (this.pumpAgain && !this.stopped);
    })()
      .catch((error: unknown) => {
        feedOutageLog().failed(error);
        this.closeAll();
      })
      .finally(() => {
        this.pumping = false;
      });
  }

  private async sendSnapshot(): Promise<void> {
    const message = await labSnapshotMessage(this.lab, getFeedPool());
    if (this.stopped) return;
    this.broadcast({ ...message, data: { ...message.data, viewers: this.viewers.size } });
  }

  private broadcast(message: SseMessage): void {
    for (const viewer of [...this.viewers]) {
      viewer.deliver(message);
      if (viewer.backlogBytes() > MAX_VIEWER_BACKLOG_BYTES) {
        this.viewers.delete(viewer);
        viewer.close();
      }
    }
    if (this.viewers.size === 0) this.dispose();
  }

  /** The feed is gone: every viewer's stream ends, and their browsers reconnect to a fresh one. */
  private closeAll(): void {
    const viewers = [...this.viewers];
    this.viewers.clear();
    this.dispose();
    for (const viewer of viewers) viewer.close();
  }

  dispose(): void {
    if (this.stopped) return;
    this.stop();
    this.onDead();
  }
}

/** The per-lab channels of this server process, one hub per process (lib/os/process-singletons.ts). */
class LabHub {
  private readonly channels = new Map<string, LabChannel>();

  /**
   * Adds a viewer to its lab's channel: from the moment this is called it is handed every event
   * newer than what the channel had read, in order. Resolves once the channel is listening; returns
   * the viewer's leave function.
   */
  async join(lab: LabInstance, viewer: HubViewer): Promise<() => void> {
    let channel = this.channels.get(lab.id);
    if (!channel) {
      const created = new LabChannel(lab, () => {
        if (this.channels.get(lab.id) === created) this.channels.delete(lab.id);
      });
      this.channels.set(lab.id, created);
      channel = created;
    }
    const joined = channel;
    joined.viewers.add(viewer);
    const leave = () => {
      if (joined.viewers.delete(viewer) && joined.viewers.size === 0) joined.dispose();
    };
    try {
      await joined.ready;
    } catch (error) {
      leave();
      throw error;
    }
    return leave;
  }

  /** Viewers connected to a lab, and whether its channel runs timers (0 and false once nobody watches). */
  stateOf(labId: string): { viewers: number; ticking: boolean } {
    const channel = this.channels.get(labId);
    // Asked of every channel of the lab, listed or not: one let go while its timer still ran leaks.
    const ticking = [...LabChannel.ticking].some((c) => c.lab.id === labId);
    return { viewers: channel?.viewers.size ?? 0, ticking };
  }
}

/**
 * The lab's row, lease, workers (from their status rows, whoever started them), chaos run and, in a
 * shared lab, the questions asked of the room (db/polls.ts) as one `snapshot` message.
 */
export async function labSnapshotMessage(lab: LabInstance, db: Queryable): Promise<SseMessage & { data: object }> {
  const [snapshot, workers, polls] = await Promise.all([
    readLabSnapshot(lab, db),
    getSupervisor().listWorkers(lab),
    lab.visibility === 'shared' ? readRunPolls(lab.id, db) : [],
  ]);
  const chaos = chaosRunOf(lab.id);
  return {
    event: 'snapshot',
    data: { ...snapshot, workers, ...(chaos ? { chaos } : {}), ...(polls.length > 0 ? { polls } : {}) },
  };
}

export const getLabHub = (): LabHub => singleton('server.lab-hub', () => new LabHub());
