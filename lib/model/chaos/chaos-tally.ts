/*
 * What a chaos run did, counted from the events the lab recorded (pure): grants, writes accepted
 * and rejected, freezes by where they struck, forced takeovers, crashes, and above all the stale
 * write attempts, the only writes that put the fencing token to the test.
 *
 * A stale attempt is a write that reached the database from a holder whose lease was superseded:
 * another holder, granted a later lease (a newer token, or the same token granted again later),
 * has already had a write accepted on that row. The fenced labs must reject every one; the broken
 * labs let some through (`staleAccepted`), which is their damage. A write of a superseded holder
 * that lands before the new holder has written is not counted: nothing newer is on the row yet,
 * and fencing accepts it by design.
 */

export type ChaosTally = {
  elapsedMs: number;
  grants: number;
  accepted: number;
  rejected: number;
  staleAttempts: number;
  /** Stale attempts the database accepted: 0 in a fenced lab, the damage in a broken one. */
  staleAccepted: number;
  /** Freezes (SIGSTOP-like: the worker's main thread blocked) by where they struck. */
  freezes: { criticalWindow: number; anywhere: number };
  /** Leases the lease service ended early (lease_expired with `revoked`). */
  forcedTakeovers: number;
  crashes: number;
};

/** What a run's actions did beyond what the lab's events say: connections held, database crashes. */
export type NemesisCounts = { heldConnections: number; databaseCrashes: number };

export type ChaosCounts = ChaosTally & NemesisCounts;

type TallyEvent = {
  id: number;
  kind: string;
  actor: string;
  lab: string;
  token?: number;
  rowId?: number;
  detail: Record<string, unknown>;
};

type Grant = { id: number; token: number };

/** Whether lease `a` came after lease `b`: a newer token, or the same token granted again later. */
const laterLease = (a: Grant, b: Grant): boolean => a.token > b.token || (a.token === b.token && a.id > b.id);

export function tallyChaos(events: readonly TallyEvent[], elapsedMs: number): ChaosTally {
  const tally: ChaosTally = {
    elapsedMs,
    grants: 0,
    accepted: 0,
    rejected: 0,
    staleAttempts: 0,
    staleAccepted: 0,
    freezes: { criticalWindow: 0, anywhere: 0 },
    forcedTakeovers: 0,
    crashes: 0,
  };
  /** Each holder's latest grant, per lab: the lease its writes are sent under. */
  const grants = new Map<string, Grant>();
  /** Per row: the lease of the writer whose accepted write fenced out every older lease. */
  const fences = new Map<string, { actor: string; lease: Grant }>();
  for (const event of [...events].sort((a, b) => a.id - b.id)) {
    switch (event.kind) {
      case 'lease_acquired':
        tally.grants += 1;
        if (event.token !== undefined) grants.set(`${event.lab}/${event.actor}`, { id: event.id, token: event.token });
        break;
      case 'lease_expired':
        if (event.detail.revoked !== undefined) tally.forcedTakeovers += 1;
        break;
      case 'pause_started':
        if (event.detail.trigger === 'critical-window') tally.freezes.criticalWindow += 1;
        else tally.freezes.anywhere += 1;
        break;
      case 'worker_crashed':
        tally.crashes += 1;
        break;
      case 'write_accepted':
      case 'write_rejected': {
        const accepted = event.kind === 'write_accepted';
        if (accepted) tally.accepted += 1;
        else tally.rejected += 1;
        const row = event.rowId === undefined ? event.lab : `${event.lab}#${event.rowId}`;
        const lease = grants.get(`${event.lab}/${event.actor}`);
        const fence = fences.get(row);
        if (lease && fence && fence.actor !== event.actor && laterLease(fence.lease, lease)) {
          tally.staleAttempts += 1;
          if (accepted) tally.staleAccepted += 1;
        }
        if (accepted && lease && (!fence || !laterLease(fence.lease, lease))) {
          fences.set(row, { actor: event.actor, lease });
        }
        break;
      }
    }
  }
  return tally;
}

/** Stale attempts per minute of a run, to one decimal. */
export function stalePerMinute(tally: Pick<ChaosTally, 'staleAttempts' | 'elapsedMs'>): number {
  if (tally.elapsedMs <= 0) return 0;
  return Math.round((tally.staleAttempts / (tally.elapsedMs / 60_000)) * 10) / 10;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The counts in one line, stale attempts first: what the run asked of the fence, and how often. */
export function describeTotals(t: ChaosCounts): string {
  return [
    `${plural(t.staleAttempts, 'stale write attempt')} (${stalePerMinute(t)} a minute), ${t.staleAccepted} accepted`,
    `${t.accepted} writes accepted, ${t.rejected} rejected`,
    plural(t.grants, 'grant'),
    `freezes: ${t.freezes.criticalWindow} in the critical window, ${t.freezes.anywhere} elsewhere`,
    plural(t.forcedTakeovers, 'forced takeover'),
    plural(t.heldConnections, 'held connection'),
    plural(t.crashes, 'worker crash', 'worker crashes'),
    plural(t.databaseCrashes, 'database crash', 'database crashes'),
    `in ${(t.elapsedMs / 1000).toFixed(1)} s`,
  ].join('; ');
}
