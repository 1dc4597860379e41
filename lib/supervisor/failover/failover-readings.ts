import 'server-only';
import {
  connectFailoverServer,
  type FailoverSession,
  readLease,
  readProtectedRow,
  readTokenSequence,
} from '../../../db/failover-cluster';
import type { FailoverStep } from '../../model/failover/failover-steps';
import { LOCK_RESOURCE } from './failover-story';
import type { ReplicaPair } from './replica-pair';

/*
 * What the lab reads off the pair to narrate a step: the sequence at the cut and before the kill
 * (whether a token can come back), and what the promoted standby holds (whether anything
 * acknowledged was lost). Each on a session of its own, ended before the answer.
 */

async function onServer<T>(url: string, read: (session: FailoverSession) => Promise<T>): Promise<T> {
  const session = await connectFailoverServer(url);
  try {
    return await read(session);
  } finally {
    // A session on a killed server has nothing to end.
    await session.end().catch(() => undefined);
  }
}

/** The primary's sequence as the cut begins (nothing to say once the standby was promoted). */
export async function sequenceAtCut(pair: ReplicaPair): Promise<{ primaryLastValue: string; primaryLogCount: number }> {
  const sequence = await onServer(pair.writerUrl(), readTokenSequence);
  return { primaryLastValue: sequence.lastValue, primaryLogCount: sequence.logCount };
}

/** The last token the primary handed out, and what the standby's replayed sequence covers. */
export async function sequenceBeforeKill(
  pair: ReplicaPair,
): Promise<{ primaryLastValue: string; standbyCeiling: string }> {
  const primary = await onServer(pair.primaryUrl, readTokenSequence);
  const standby = await onServer(pair.standbyUrl, readTokenSequence);
  return { primaryLastValue: primary.lastValue, standbyCeiling: standby.lastValue };
}

/** The row and the lease the promoted standby holds. */
export async function promotedHolds(pair: ReplicaPair): Promise<Extract<FailoverStep, { kind: 'standby_promoted' }>> {
  return onServer(pair.writerUrl(), async (session) => {
    const row = await readProtectedRow(session);
    const lease = await readLease(session, LOCK_RESOURCE);
    return {
      kind: 'standby_promoted',
      row,
      lease: lease && { resource: lease.resource, holder: lease.holder, token: lease.token },
    };
  });
}
