import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectFailoverServer, type FailoverSession, grantLease, readLease } from '../../../db/failover-cluster';
import { FencingError } from '../../model/core/errors';
import { FAILOVER_HOLDERS, type FailoverHolder } from '../../model/failover/failover-events';
import { LOCK_RESOURCE } from './failover-story';
import type { ReplicaPair } from './replica-pair';

/*
 * The failover lab's lock holders, A, B and C: each a session of its own on whichever server takes
 * writes now (a new one after a promotion), the last token granted to it, and the grant it is still
 * waiting for (a synchronous COMMIT on a cut wire).
 */

export const FAILOVER_LEASE_TTL_MS = 2_000;
const GRANT_ATTEMPTS = 5;

type Grant = NonNullable<Awaited<ReturnType<typeof grantLease>>>;

type Holder = { token?: string; session?: FailoverSession; sessionUrl?: string; pending?: Promise<unknown> };

export class FailoverHolders {
  private holders: Record<FailoverHolder, Holder> = { A: {}, B: {}, C: {} };

  of(holder: FailoverHolder): Holder {
    return this.holders[holder];
  }

  /** The grants still waiting for the standby. */
  pending(): Promise<unknown>[] {
    return Object.values(this.holders).flatMap((holder) => (holder.pending ? [holder.pending] : []));
  }

  /** What the page shows of each holder. */
  view(): Record<FailoverHolder, { token?: string; waiting: boolean }> {
    return Object.fromEntries(
      FAILOVER_HOLDERS.map((name) => {
        const holder = this.holders[name];
        return [name, { ...(holder.token ? { token: holder.token } : {}), waiting: Boolean(holder.pending) }];
      }),
    ) as Record<FailoverHolder, { token?: string; waiting: boolean }>;
  }

  /** The holder's session on the server that takes writes now. */
  async sessionOf(holder: FailoverHolder, pair: ReplicaPair): Promise<FailoverSession> {
    const state = this.holders[holder];
    const url = pair.writerUrl();
    if (state.session && state.sessionUrl === url) return state.session;
    // A session on the old writer may be dead already: nothing to end.
    await state.session?.end().catch(() => undefined);
    state.session = await connectFailoverServer(url);
    state.sessionUrl = url;
    return state.session;
  }

  /**
   * Asks for the lock for `holder` and answers with the grant to come: it is taken once the lock is
   * free (another holder's running lease is waited out, at most its TTL, as a lease service's client
   * would) and once its COMMIT is acknowledged (under synchronous replication with the wire cut, after
   * a heal). Meanwhile the holder's grant is pending; `granted` runs (to record it) before it ends.
   * Refused when `holder` holds the lock already, or still waits for a grant.
   */
  async startGrant(
    holder: FailoverHolder,
    pair: ReplicaPair,
    granted: (grant: Grant) => Promise<void>,
  ): Promise<{ pending: Promise<Grant> }> {
    const state = this.holders[holder];
    if (state.pending) throw new FencingError('invalid_input', `${holder}'s grant is still waiting for the standby`);
    const session = await this.sessionOf(holder, pair);
    const current = await readLease(session, LOCK_RESOURCE);
    if (current && current.holder === holder && current.expiresAt.getTime() > Date.now()) {
      throw new FencingError('invalid_input', `${holder} holds the lease already (token ${current.token})`);
    }
    const pending = (async () => {
      for (let attempt = 0; attempt < GRANT_ATTEMPTS; attempt++) {
        const lease = await readLease(session, LOCK_RESOURCE);
        if (lease) await sleep(Math.max(0, lease.expiresAt.getTime() - Date.now()) + 50);
        const grant = await grantLease(session, { resource: LOCK_RESOURCE, holder, ttlMs: FAILOVER_LEASE_TTL_MS });
        if (grant) {
          state.token = grant.token;
          await granted(grant);
          return grant;
        }
      }
      throw new FencingError('invalid_input', `${holder} could not take the lease: another holder keeps it`);
    })().finally(() => {
      state.pending = undefined;
    });
    state.pending = pending;
    return { pending };
  }

  /** Ends every session and forgets the tokens. */
  async close(): Promise<void> {
    // A session may be dead already (its server killed): nothing to end.
    for (const holder of Object.values(this.holders)) await holder.session?.end().catch(() => undefined);
    this.holders = { A: {}, B: {}, C: {} };
  }
}
