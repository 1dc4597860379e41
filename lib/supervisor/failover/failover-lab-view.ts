import 'server-only';
import type { FailoverHolder } from '../../model/failover/failover-events';
import { type ServerView, serverView } from './failover-server-view';
import type { ReplicaPair, ReplicationMode } from './replica-pair';

/*
 * What the failover lab's page shows beside its timeline: the pair's servers as each answers now
 * (row, lease, sequence) and the holders. The history is not here: it is the lab's events, which
 * the page's live feed delivers. Answers are shared for VIEW_FRESH_MS, so that a room of watchers
 * costs the pair a few connections a second, not one per watcher.
 */

const VIEW_FRESH_MS = 500;

export type FailoverLabView = {
  mode?: ReplicationMode;
  replicationCut: boolean;
  promoted: boolean;
  primaryKilled: boolean;
  holders: Record<FailoverHolder, { token?: string; waiting: boolean }>;
  servers: ServerView[];
};

export type ViewSource = {
  pair: ReplicaPair | undefined;
  primaryKilled: boolean;
  holders: FailoverLabView['holders'];
};

export class SharedView {
  private last: { at: number; view: Promise<FailoverLabView> } | undefined;

  constructor(private readonly source: () => ViewSource) {}

  /** A control changed something: the next look reads the servers again. */
  invalidate(): void {
    this.last = undefined;
  }

  read(): Promise<FailoverLabView> {
    if (this.last && Date.now() - this.last.at < VIEW_FRESH_MS) return this.last.view;
    const view = readView(this.source());
    this.last = { at: Date.now(), view };
    // The caller gets the rejection from `view`; here it only drops the cached view.
    view.catch(() => this.invalidate());
    return view;
  }
}

async function readView({ pair, primaryKilled, holders }: ViewSource): Promise<FailoverLabView> {
  const servers: ServerView[] = [];
  if (pair) {
    servers.push(await serverView(pair.primaryUrl, 'primary', pair.primary.isRunning()));
    servers.push(
      await serverView(pair.standbyUrl, pair.promoted() ? 'promoted standby' : 'standby', pair.standby.isRunning()),
    );
  }
  return {
    ...(pair ? { mode: pair.mode } : {}),
    replicationCut: pair?.link.isCut() ?? false,
    promoted: pair?.promoted() ?? false,
    primaryKilled,
    holders,
    servers,
  };
}
