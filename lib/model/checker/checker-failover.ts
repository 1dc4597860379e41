import type { WireEvent } from '../core/wire';
import { clockOf, type Finding, type Grant, type Write } from './checker-violations';

/*
 * The checker's failover rules (the failover lab, lib/supervisor/failover/): a `standby_promoted`
 * event says what the promoted standby holds; whatever was acknowledged before it and is not there
 * was lost, and a later write below a lost write's token is a stale write accepted. Pure; called by
 * the one checker (checker.ts) with what it has folded so far.
 */

export function judgePromotion(
  event: WireEvent,
  acknowledged: Write | undefined,
  lastGrantOf: (resource: string) => (Grant & { resource: string }) | undefined,
): { findings: Finding[]; lostWrite?: Write } {
  const findings: Finding[] = [];
  let lostWrite: Write | undefined;
  const row = event.detail.row as { value?: unknown; lastToken?: unknown } | undefined;
  if (acknowledged && row && typeof row.lastToken === 'number' && row.lastToken < acknowledged.token) {
    lostWrite = acknowledged;
    findings.push({
      rule: 'acknowledged-write-lost',
      kind: 'an acknowledged write lost in the failover',
      message: `acknowledged write lost: ${acknowledged.actor}'s write "${acknowledged.value}" (token ${acknowledged.token}), acknowledged at ${clockOf(acknowledged.at)}, is not on the promoted standby: its row holds "${String(row.value ?? '')}" with token ${row.lastToken}`,
      eventIds: [acknowledged.id, event.id],
    });
  }
  const lease = event.detail.lease as { resource?: unknown; holder?: unknown; token?: unknown } | null | undefined;
  if (lease && typeof lease.resource === 'string' && typeof lease.token === 'number') {
    const granted = lastGrantOf(lease.resource);
    if (granted && lease.token < granted.token) {
      findings.push({
        rule: 'acknowledged-write-lost',
        kind: 'an acknowledged grant lost in the failover',
        message: `acknowledged grant lost: ${granted.actor}'s lease of ${granted.resource} (token ${granted.token}), granted at ${clockOf(granted.at)}, is not on the promoted standby: its lease is ${String(lease.holder)}'s, token ${lease.token}`,
        eventIds: [granted.id, event.id],
      });
    }
  }
  return lostWrite ? { findings, lostWrite } : { findings };
}

/** A write accepted below the token of an acknowledged write that a failover lost. */
export function staleAfterLoss(write: Write, lost: Write): Finding {
  return {
    rule: 'stale-write-accepted',
    kind: 'then a stale write accepted',
    message: `stale write accepted: ${write.actor} wrote "${write.value}" with token ${write.token} at ${clockOf(write.at)}, after ${lost.actor}'s write "${lost.value}" with the newer token ${lost.token} had been acknowledged (and lost in the failover)`,
    eventIds: [lost.id, write.id],
  };
}
