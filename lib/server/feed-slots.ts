import 'server-only';
import { roomSettings } from '../config/room-settings';
import { singleton } from '../os/process-singletons';

/*
 * How many live feeds this server keeps open: at most a few per client address and a bound in
 * total, so that one script opening feeds in a loop cannot take every slot (or the server's memory)
 * from the room. A refused feed is told to come back later (the route answers retryLater), and its
 * page says so. The bounds can be raised for a large room behind one address (a NAT, a reverse proxy).
 */

/** FENCING_LAB_MAX_FEEDS_PER_ADDRESS and FENCING_LAB_MAX_FEEDS, as the room's settings have them. */
function feedLimits(): { perAddress: number; total: number } {
  const settings = roomSettings();
  return { perAddress: settings.maxFeedsPerAddress, total: settings.maxFeeds };
}

export type FeedRefusal = 'address' | 'total';

class FeedSlots {
  private readonly byAddress = new Map<string, number>();
  private total = 0;

  /** A slot for a feed from `address`, with its release (idempotent), or why there is none. */
  take(address: string): { release: () => void } | { refused: FeedRefusal } {
    const limits = feedLimits();
    const mine = this.byAddress.get(address) ?? 0;
    if (mine >= limits.perAddress) return { refused: 'address' };
    if (this.total >= limits.total) return { refused: 'total' };
    this.byAddress.set(address, mine + 1);
    this.total++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.byAddress.get(address) ?? 1) - 1;
        if (left > 0) this.byAddress.set(address, left);
        else this.byAddress.delete(address);
      },
    };
  }

  /** Open feeds, in total and from one address (for tests). */
  count(address?: string): number {
    return address === undefined ? this.total : (this.byAddress.get(address) ?? 0);
  }
}

/** The server's one count of open feeds (lib/os/process-singletons.ts: Next loads modules more than once). */
export const getFeedSlots = (): FeedSlots => singleton('server.feed-slots', () => new FeedSlots());
