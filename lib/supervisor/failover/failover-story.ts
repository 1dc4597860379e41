import { setTimeout as sleep } from 'node:timers/promises';
import {
  connectFailoverServer,
  type FailoverSession,
  grantLease,
  readLease,
  readProtectedRow,
  readTokenSequence,
  writeFencedRow,
} from '../../../db/failover-cluster';
import { FAILOVER_RESOURCE, OTHER_HOLDERS, otherFailoverResource } from '../../model/failover/failover-events';
import type { FailoverStep } from '../../model/failover/failover-steps';
import type { ReplicaPair } from './replica-pair';

/*
 * The failover story, on a real pair: A holds a token and writes; replication is cut; A's lease
 * runs out and B takes it, and B's grant and write are acknowledged by the primary (under
 * synchronous replication B's COMMIT first waits for the standby: the story shows it waiting, then
 * heals the wire); `grantsPastCut` more grants of other locks of the same service follow; the primary
 * is SIGKILLed and the standby promoted; A, late, writes with its old token; C takes the lease.
 * Every step is handed to `record` as it happens, so a caller keeps the history outside the pair.
 */

/** The lab's lock (lib/labs/failover.ts), as its events name it. */
export const LOCK_RESOURCE = FAILOVER_RESOURCE;
export const STORY_LEASE_TTL_MS = 800;
/** How long the story lets a synchronous COMMIT wait on the cut wire before it heals it. */
export const SYNC_WAIT_SHOWN_MS = 1_500;

export async function runFailoverStory(
  pair: ReplicaPair,
  options: { grantsPastCut?: number; record: (step: FailoverStep) => void | Promise<void> },
): Promise<void> {
  const record = async (step: FailoverStep) => {
    await options.record(step);
  };
  await record({ kind: 'pair_started', mode: pair.mode });
  const a = await connectFailoverServer(pair.primaryUrl);
  const b = await connectFailoverServer(pair.primaryUrl);
  const sessions: FailoverSession[] = [a, b];
  try {
    const grantA = await grantOrFail(a, 'A');
    await record(grantStep('A', grantA, 'primary'));
    const writeA = await writeFencedRow(a, { value: 'A-1', token: grantA.token });
    await record(writeStep('A', grantA.token, 'A-1', 'primary', writeA));
    await pair.waitForStandby();

    const atCut = await readTokenSequence(a);
    pair.cutReplication();
    await record({
      kind: 'replication_cut',
      sequence: { primaryLastValue: atCut.lastValue, primaryLogCount: atCut.logCount },
    });

    await sleep(Math.max(0, grantA.expiresAt.getTime() - Date.now()) + 100);
    const pending = grantOrFail(b, 'B');
    if (pair.mode === 'sync') {
      const started = Date.now();
      const early = await Promise.race([
        pending.then(() => 'acknowledged'),
        sleep(SYNC_WAIT_SHOWN_MS).then(() => 'waiting'),
      ]);
      if (early === 'acknowledged')
        throw new Error('under synchronous replication, B’s grant was acknowledged with the wire cut');
      await record({ kind: 'grant_waiting', holder: 'B', waitedMs: Date.now() - started });
      pair.healReplication();
      await record({ kind: 'replication_healed' });
    }
    const grantB = await pending;
    await record(grantStep('B', grantB, 'primary'));
    const writeB = await writeFencedRow(b, { value: 'B-1', token: grantB.token });
    await record(writeStep('B', grantB.token, 'B-1', 'primary', writeB));

    for (let i = 1; i <= (options.grantsPastCut ?? 0); i++) {
      const resource = otherFailoverResource(i);
      const other = await grantLease(b, { resource, holder: `O${i}`, ttlMs: 60_000 });
      if (!other) throw new Error(`the lock ${resource} was not free`);
      // One lane for all of them on the timeline: their holders matter less than their tokens.
      await record(grantStep(OTHER_HOLDERS, other, 'primary'));
    }

    const standbyView = await connectFailoverServer(pair.standbyUrl);
    const ceiling = await readTokenSequence(standbyView).finally(() => standbyView.end());
    const primaryNow = await readTokenSequence(b);
    await pair.killPrimary();
    await record({
      kind: 'primary_killed',
      sequence: { primaryLastValue: primaryNow.lastValue, standbyCeiling: ceiling.lastValue },
    });
    await pair.promoteStandby();
    const promoted = await connectFailoverServer(pair.writerUrl());
    sessions.push(promoted);
    const row = await readProtectedRow(promoted);
    const lease = await readLease(promoted, LOCK_RESOURCE);
    await record({
      kind: 'standby_promoted',
      row,
      lease: lease && { resource: lease.resource, holder: lease.holder, token: lease.token },
    });

    const lateA = await writeFencedRow(promoted, { value: 'A-2', token: grantA.token });
    await record(writeStep('A', grantA.token, 'A-2', 'promoted standby', lateA));

    const leaseNow = await readLease(promoted, LOCK_RESOURCE);
    if (leaseNow) await sleep(Math.max(0, leaseNow.expiresAt.getTime() - Date.now()) + 100);
    const grantC = await grantOrFail(promoted, 'C');
    await record(grantStep('C', grantC, 'promoted standby'));
  } finally {
    // A session on a killed server has nothing to end.
    for (const session of sessions) await session.end().catch(() => undefined);
  }
}

export function grantStep(
  holder: string,
  grant: { resource: string; token: string; expiresAt: Date },
  server: 'primary' | 'promoted standby',
): FailoverStep {
  return {
    kind: 'grant',
    holder,
    resource: grant.resource,
    token: grant.token,
    server,
    expiresAt: grant.expiresAt.toISOString(),
  };
}

async function grantOrFail(session: FailoverSession, holder: string) {
  const grant = await grantLease(session, { resource: LOCK_RESOURCE, holder, ttlMs: STORY_LEASE_TTL_MS });
  if (!grant) throw new Error(`${holder} could not take the lease: another holder's lease still runs`);
  return grant;
}

function writeStep(
  holder: string,
  token: string,
  value: string,
  server: 'primary' | 'promoted standby',
  result: Awaited<ReturnType<typeof writeFencedRow>>,
): FailoverStep {
  return result.accepted
    ? { kind: 'write', holder, token, value, server, accepted: true }
    : { kind: 'write', holder, token, value, server, accepted: false, rowToken: result.rowToken };
}
