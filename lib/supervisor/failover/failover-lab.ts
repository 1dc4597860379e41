import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFencedRow } from '../../../db/failover-cluster';
import { FencingError } from '../../model/core/errors';
import type { FailoverHolder } from '../../model/failover/failover-events';
import type { FailoverStep } from '../../model/failover/failover-steps';
import { existingSingleton, singleton } from '../../os/process-singletons';
import { clearFailoverHistory, failoverStoryOpen, recordFailoverStep } from './failover-history';
import { FAILOVER_LEASE_TTL_MS, FailoverHolders } from './failover-holders';
import { type FailoverLabView, SharedView } from './failover-lab-view';
import { promotedHolds, sequenceAtCut, sequenceBeforeKill } from './failover-readings';
import { removeLeftoverDirs } from './failover-server-view';
import { grantStep } from './failover-story';
import { type ReplicaPair, type ReplicationMode, startReplicaPair } from './replica-pair';

export { FAILOVER_LEASE_TTL_MS } from './failover-holders';
export type { FailoverLabView } from './failover-lab-view';

/*
 * The shared failover lab of this server: at most one primary/standby pair, owned here (each server
 * through its keeper, so the pair also ends with this process however it ends), and the controls
 * that act on it, one at a time. Every step is recorded as an event of the lab `failover` in the
 * app's database (failover-history.ts), so the record outlives the pair. The holders, A, B and C,
 * are in failover-holders.ts; what the page shows of the servers, in failover-lab-view.ts.
 *
 * One pair per server, for the trainer only: each pair is two PostgreSQL servers (about 40 MB and
 * a dozen processes), which private labs for a whole room would multiply.
 */

/** How long a grant is awaited before the control answers "waiting" (a synchronous COMMIT on a cut wire). */
const GRANT_ANSWER_MS = 1_000;
/** How long a heal waits for the grants that waited on the cut wire. */
const HEAL_WAIT_MS = 10_000;

const serverOf = (pair: ReplicaPair) => (pair.promoted() ? 'promoted standby' : 'primary');

class FailoverLab {
  private pair: ReplicaPair | undefined;
  private holders = new FailoverHolders();
  private queue: Promise<unknown> = Promise.resolve();
  private killed = false;
  private readonly shared = new SharedView(() => ({
    pair: this.pair,
    primaryKilled: this.killed,
    holders: this.holders.view(),
  }));

  constructor(private readonly parentDir: string) {}

  /** One control at a time, in arrival order. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    // The next job runs after this one whatever became of it; the caller gets its error from `next`.
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async record(step: FailoverStep): Promise<void> {
    this.shared.invalidate();
    await recordFailoverStep(step);
  }

  private requirePair(): ReplicaPair {
    if (!this.pair) throw new FencingError('invalid_input', 'start the pair first');
    return this.pair;
  }

  /** The pair, when a server of it takes writes now (the primary, or the promoted standby). */
  private requireWriter(): ReplicaPair {
    const pair = this.requirePair();
    if (!pair.promoted() && !pair.primary.isRunning()) {
      throw new FencingError(
        'invalid_input',
        'the primary is down and the standby is not promoted yet: no server takes writes',
      );
    }
    return pair;
  }

  /** A new pair, and a new story: the last story's events go (as a reset does in the other labs). */
  start(mode: ReplicationMode) {
    return this.serially(async () => {
      await this.close();
      await removeLeftoverDirs(this.parentDir);
      await clearFailoverHistory();
      this.pair = await startReplicaPair({ mode, parentDir: this.parentDir });
      await this.record({ kind: 'pair_started', mode });
      return {};
    });
  }

  /**
   * Stops the pair; its history stays, to be judged, replayed and exported after the pair is gone,
   * and ends with `pair_stopped` (also when its pair ended with an earlier run of this server).
   */
  reset() {
    return this.serially(async () => {
      await this.close();
      if (await failoverStoryOpen()) await this.record({ kind: 'pair_stopped' });
      return {};
    });
  }

  cut() {
    return this.serially(async () => {
      const pair = this.requireWriter();
      if (pair.link.isCut()) throw new FencingError('invalid_input', 'replication is already cut');
      const sequence = pair.promoted() ? undefined : await sequenceAtCut(pair);
      pair.cutReplication();
      await this.record({ kind: 'replication_cut', ...(sequence ? { sequence } : {}) });
      return {};
    });
  }

  heal() {
    return this.serially(async () => {
      const pair = this.requirePair();
      if (!pair.link.isCut()) throw new FencingError('invalid_input', 'replication is not cut');
      pair.healReplication();
      await this.record({ kind: 'replication_healed' });
      // A grant that waited on the cut wire goes through once the standby has it: answer after that.
      await Promise.race([Promise.allSettled(this.holders.pending()), sleep(HEAL_WAIT_MS)]);
      return {};
    });
  }

  /**
   * Grants the lock to `holder` once it is free. Under synchronous replication with the wire cut
   * the COMMIT waits: the control then answers "waiting", records it, and the grant is recorded
   * when the standby has it (after a heal).
   */
  grant(holder: FailoverHolder) {
    return this.serially(async () => {
      const pair = this.requireWriter();
      const server = serverOf(pair);
      const started = Date.now();
      const { pending } = await this.holders.startGrant(holder, pair, (grant) =>
        this.record(grantStep(holder, grant, server)),
      );
      // Awaited in the race below: this only keeps a late rejection from going unhandled.
      pending.catch(() => undefined);
      const answer = await Promise.race([
        pending.then((grant) => ({ waiting: false as const, token: grant.token })),
        sleep(FAILOVER_LEASE_TTL_MS + GRANT_ANSWER_MS).then(() => ({ waiting: true as const })),
      ]);
      if (answer.waiting) await this.record({ kind: 'grant_waiting', holder, waitedMs: Date.now() - started });
      return answer;
    });
  }

  write(holder: FailoverHolder) {
    return this.serially(async () => {
      const pair = this.requireWriter();
      const state = this.holders.of(holder);
      if (state.pending) {
        throw new FencingError('invalid_input', `${holder}'s grant is still waiting for the standby: heal replication`);
      }
      const token = state.token;
      if (!token) throw new FencingError('invalid_input', `${holder} holds no token yet: grant it the lock first`);
      const session = await this.holders.sessionOf(holder, pair);
      const value = `${holder}-${Date.now() % 100_000}`;
      const result = await writeFencedRow(session, { value, token });
      const server = serverOf(pair);
      await this.record(
        result.accepted
          ? { kind: 'write', holder, token, value, server, accepted: true }
          : { kind: 'write', holder, token, value, server, accepted: false, rowToken: result.rowToken },
      );
      return result;
    });
  }

  killPrimary() {
    return this.serially(async () => {
      const pair = this.requirePair();
      if (this.killed) throw new FencingError('invalid_input', 'the primary is already down');
      const sequence = await sequenceBeforeKill(pair);
      await pair.killPrimary();
      this.killed = true;
      await this.record({ kind: 'primary_killed', sequence });
      return {};
    });
  }

  promote() {
    return this.serially(async () => {
      const pair = this.requirePair();
      if (pair.promoted()) throw new FencingError('invalid_input', 'the standby is already promoted');
      await pair.promoteStandby();
      await this.record(await promotedHolds(pair));
      return {};
    });
  }

  /** What the page shows of the servers and holders (the history is the lab's events). */
  view(): Promise<FailoverLabView> {
    return this.shared.read();
  }

  /** Stops the pair and forgets the holders. */
  async close(): Promise<void> {
    await this.holders.close();
    this.killed = false;
    this.shared.invalidate();
    const pair = this.pair;
    this.pair = undefined;
    await pair?.stop();
  }
}

const FAILOVER_LAB_SINGLETON = 'failover-lab';

/** The server's failover lab (lib/os/process-singletons.ts: Next loads modules more than once per process). */
export function getFailoverLab(parentDir: string): FailoverLab {
  return singleton(
    FAILOVER_LAB_SINGLETON,
    () => new FailoverLab(parentDir),
    (lab) => lab.close(),
  );
}

/** Stops the pair, if any (server shutdown); the lab stays, to start a pair again. */
export async function closeFailoverLab(): Promise<void> {
  await existingSingleton<FailoverLab>(FAILOVER_LAB_SINGLETON)?.close();
}
