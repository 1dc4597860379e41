import 'server-only';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  connectFailoverServer,
  type FailoverSession,
  grantLease,
  readLease,
  readProtectedRow,
  readTokenSequence,
  writeGuardedRow,
} from '../../../db/failover-cluster';
import { listFailoverSteps, recordFailoverStep } from '../../../db/failover-steps';
import { FencingError } from '../../model/errors';
import type { FailoverStep } from '../../model/failover-checker';
import type { FailoverHolder } from '../../model/failover-inputs';
import { removeLeftoverDirs, type ServerView, serverView } from './failover-server-view';
import { LOCK_RESOURCE } from './failover-story';
import { type ReplicaPair, type ReplicationMode, startReplicaPair } from './replica-pair';

/*
 * The shared failover lab of this server: at most one primary/standby pair, owned here (each server
 * through its keeper, so the pair also ends with this process however it ends). The controls act
 * on it one at a time; every step is recorded in the app's database (failover_steps) under the
 * lab's current run, so the record outlives the pair. Holders are A, B and C, each with a session of
 * its own on whichever server takes writes, and the last token granted to it.
 *
 * One pair per server, for the trainer only: each pair is two PostgreSQL servers (about 40 MB and
 * a dozen processes), which private labs for a whole room would multiply.
 */

export const FAILOVER_LEASE_TTL_MS = 2_000;
/** How long a grant is awaited before the control answers "waiting" (a synchronous COMMIT on a cut wire). */
const GRANT_ANSWER_MS = 1_000;
const VIEW_FRESH_MS = 500;
const GRANT_ATTEMPTS = 5;
/** How long a heal waits for the grants that waited on the cut wire. */
const HEAL_WAIT_MS = 10_000;

type Holder = { token?: string; session?: FailoverSession; sessionUrl?: string; pending?: Promise<unknown> };

export type FailoverLabView = {
  run: string;
  mode?: ReplicationMode;
  replicationCut: boolean;
  promoted: boolean;
  primaryKilled: boolean;
  holders: Record<FailoverHolder, { token?: string; waiting: boolean }>;
  servers: ServerView[];
  steps: FailoverStep[];
};

class FailoverLab {
  private run = randomUUID();
  private pair: ReplicaPair | undefined;
  private holders: Record<FailoverHolder, Holder> = { A: {}, B: {}, C: {} };
  private queue: Promise<unknown> = Promise.resolve();
  private killed = false;
  private lastView: { at: number; view: Promise<FailoverLabView> } | undefined;

  constructor(private readonly parentDir: string) {}

  /** One control at a time, in arrival order. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async record(step: FailoverStep): Promise<void> {
    this.lastView = undefined;
    await recordFailoverStep(this.run, step);
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

  start(mode: ReplicationMode) {
    return this.serially(async () => {
      await this.close();
      await removeLeftoverDirs(this.parentDir);
      this.run = randomUUID();
      this.pair = await startReplicaPair({ mode, parentDir: this.parentDir });
      await this.record({ kind: 'pair_started', mode });
      return { run: this.run };
    });
  }

  reset() {
    return this.serially(async () => {
      await this.close();
      this.run = randomUUID();
      return { run: this.run };
    });
  }

  cut() {
    return this.serially(async () => {
      const pair = this.requireWriter();
      if (pair.proxy.isCut()) throw new FencingError('invalid_input', 'replication is already cut');
      const session = await connectFailoverServer(pair.writerUrl());
      try {
        const sequence = pair.promoted() ? undefined : await readTokenSequence(session);
        pair.cutReplication();
        await this.record({ kind: 'replication_cut' });
        if (sequence) {
          await this.record({
            kind: 'sequence_at_cut',
            primaryLastValue: sequence.lastValue,
            primaryLogCount: sequence.logCount,
          });
        }
      } finally {
        await session.end().catch(() => undefined);
      }
      return {};
    });
  }

  heal() {
    return this.serially(async () => {
      const pair = this.requirePair();
      if (!pair.proxy.isCut()) throw new FencingError('invalid_input', 'replication is not cut');
      pair.healReplication();
      await this.record({ kind: 'replication_healed' });
      // A grant that waited on the cut wire goes through once the standby has it: answer after that.
      const waiting = Object.values(this.holders).flatMap((holder) => (holder.pending ? [holder.pending] : []));
      await Promise.race([Promise.allSettled(waiting), sleep(HEAL_WAIT_MS)]);
      return {};
    });
  }

  /**
   * Grants the lock to `holder` once it is free (waiting out a running lease). Under synchronous
   * replication with the wire cut the COMMIT waits: the control then answers "waiting", records
   * it, and the grant is recorded when the standby has it (after a heal).
   */
  grant(holder: FailoverHolder) {
    return this.serially(async () => {
      const pair = this.requireWriter();
      const state = this.holders[holder];
      if (state.pending) throw new FencingError('invalid_input', `${holder}'s grant is still waiting for the standby`);
      const session = await this.sessionOf(holder, pair);
      const server = pair.promoted() ? 'promoted standby' : 'primary';
      const started = Date.now();
      const current = await readLease(session, LOCK_RESOURCE);
      if (current && current.holder === holder && current.expiresAt.getTime() > Date.now()) {
        throw new FencingError('invalid_input', `${holder} holds the lease already (token ${current.token})`);
      }
      const granted = (async () => {
        // Another holder's running lease is waited out (at most its TTL), as a lease service's client would.
        for (let attempt = 0; attempt < GRANT_ATTEMPTS; attempt++) {
          const lease = await readLease(session, LOCK_RESOURCE);
          if (lease) await sleep(Math.max(0, lease.expiresAt.getTime() - Date.now()) + 50);
          const grant = await grantLease(session, { resource: LOCK_RESOURCE, holder, ttlMs: FAILOVER_LEASE_TTL_MS });
          if (grant) return grant;
        }
        throw new FencingError('invalid_input', `${holder} could not take the lease: another holder keeps it`);
      })();
      const pending = granted.then(async (grant) => {
        state.token = grant.token;
        state.pending = undefined;
        await this.record({ kind: 'grant', holder, resource: LOCK_RESOURCE, token: grant.token, server });
        return grant;
      });
      pending.catch(() => {
        state.pending = undefined;
      });
      state.pending = pending;
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
      if (this.holders[holder].pending) {
        throw new FencingError('invalid_input', `${holder}'s grant is still waiting for the standby: heal replication`);
      }
      const token = this.holders[holder].token;
      if (!token) throw new FencingError('invalid_input', `${holder} holds no token yet: grant it the lock first`);
      const session = await this.sessionOf(holder, pair);
      const value = `${holder}-${Date.now() % 100_000}`;
      const result = await writeGuardedRow(session, { value, token });
      const server = pair.promoted() ? 'promoted standby' : 'primary';
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
      const primary = await connectFailoverServer(pair.primaryUrl);
      const standby = await connectFailoverServer(pair.standbyUrl);
      try {
        const [now, ceiling] = [await readTokenSequence(primary), await readTokenSequence(standby)];
        await this.record({
          kind: 'sequence_before_kill',
          primaryLastValue: now.lastValue,
          standbyCeiling: ceiling.lastValue,
        });
      } finally {
        await primary.end().catch(() => undefined);
        await standby.end().catch(() => undefined);
      }
      await pair.killPrimary();
      this.killed = true;
      await this.record({ kind: 'primary_killed' });
      return {};
    });
  }

  promote() {
    return this.serially(async () => {
      const pair = this.requirePair();
      if (pair.promoted()) throw new FencingError('invalid_input', 'the standby is already promoted');
      await pair.promoteStandby();
      const session = await connectFailoverServer(pair.writerUrl());
      try {
        const row = await readProtectedRow(session);
        const lease = await readLease(session, LOCK_RESOURCE);
        await this.record({
          kind: 'standby_promoted',
          row,
          lease: lease && { resource: lease.resource, holder: lease.holder, token: lease.token },
        });
      } finally {
        await session.end().catch(() => undefined);
      }
      return {};
    });
  }

  /**
   * What the page shows. Every open page asks every second: answers are shared for VIEW_FRESH_MS, so
   * a room of watchers costs the pair a few connections a second, not one per watcher.
   */
  view(): Promise<FailoverLabView> {
    if (this.lastView && Date.now() - this.lastView.at < VIEW_FRESH_MS) return this.lastView.view;
    const view = this.readView();
    this.lastView = { at: Date.now(), view };
    view.catch(() => {
      this.lastView = undefined;
    });
    return view;
  }

  private async readView(): Promise<FailoverLabView> {
    const pair = this.pair;
    const servers: ServerView[] = [];
    if (pair) {
      servers.push(await serverView(pair.primaryUrl, 'primary', pair.primary.isRunning()));
      servers.push(
        await serverView(pair.standbyUrl, pair.promoted() ? 'promoted standby' : 'standby', pair.standby.isRunning()),
      );
    }
    const holders = Object.fromEntries(
      (Object.keys(this.holders) as FailoverHolder[]).map((name) => [
        name,
        {
          ...(this.holders[name].token ? { token: this.holders[name].token } : {}),
          waiting: Boolean(this.holders[name].pending),
        },
      ]),
    ) as FailoverLabView['holders'];
    return {
      run: this.run,
      ...(pair ? { mode: pair.mode } : {}),
      replicationCut: pair?.proxy.isCut() ?? false,
      promoted: pair?.promoted() ?? false,
      primaryKilled: this.killed,
      holders,
      servers,
      steps: await listFailoverSteps(this.run),
    };
  }

  /** Stops the pair and forgets the holders. */
  async close(): Promise<void> {
    for (const holder of Object.values(this.holders)) await holder.session?.end().catch(() => undefined);
    this.holders = { A: {}, B: {}, C: {} };
    this.killed = false;
    this.lastView = undefined;
    const pair = this.pair;
    this.pair = undefined;
    await pair?.stop();
  }

  /** The holder's session on the server that takes writes now (a new one after a promotion). */
  private async sessionOf(holder: FailoverHolder, pair: ReplicaPair): Promise<FailoverSession> {
    const state = this.holders[holder];
    const url = pair.writerUrl();
    if (state.session && state.sessionUrl === url) return state.session;
    await state.session?.end().catch(() => undefined);
    state.session = await connectFailoverServer(url);
    state.sessionUrl = url;
    return state.session;
  }
}

const KEY = Symbol.for('fencing-lab.failover-lab');
type WithLab = typeof globalThis & { [KEY]?: FailoverLab };

/** The server's failover lab (on globalThis: Next loads modules more than once per process). */
export function getFailoverLab(parentDir: string): FailoverLab {
  const scope = globalThis as WithLab;
  scope[KEY] ??= new FailoverLab(parentDir);
  return scope[KEY];
}

/** Stops the pair, if any (server shutdown). */
export async function closeFailoverLab(): Promise<void> {
  await (globalThis as WithLab)[KEY]?.close();
}
