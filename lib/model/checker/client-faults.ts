import type { WireEvent } from '../core/wire';

/*
 * What a lock client did wrong, read from what it recorded (issue 36): the other half of the lesson.
 * The checker says whether the row lost a write; this says which of the client's habits would lose
 * one against storage that does not check: a write with a token the lease service never granted it
 * (made up, or counted by the client itself), a write after the row refused its token as stale,
 * and a lease it never renewed and went on writing under after it ran out, while it ran (not frozen:
 * a freeze is the pause the lab gives it, not its fault), judged by the database's clock. Pure; the
 * first finding of each fault.
 */

export type ClientFaultKind = 'ungranted-token' | 'wrote-after-refusal' | 'never-renewed';

export type ClientFault = {
  kind: ClientFaultKind;
  actor: string;
  token: number;
  /** The event that shows it: the write. */
  eventId: number;
  words: string;
};

const isWrite = (e: WireEvent) => e.kind === 'write_sent' || e.kind === 'write_accepted' || e.kind === 'write_rejected';

/** The faults of `actor`'s client in `events` (one lab's run, oldest first). */
export function clientFaults(events: readonly WireEvent[], actor: string): ClientFault[] {
  const mine = events.filter((e) => e.actor === actor);
  const granted = new Set(mine.filter((e) => e.kind === 'lease_acquired' && e.token !== undefined).map((e) => e.token));
  const faults: ClientFault[] = [];
  const seen = new Set<string>();
  const add = (kind: ClientFaultKind, write: WireEvent, words: string) => {
    const key = kind;
    if (seen.has(key) || write.token === undefined) return;
    seen.add(key);
    faults.push({ kind, actor, token: write.token, eventId: write.id, words });
  };
  const grants = [...granted].join(', ');

  for (const write of mine.filter(isWrite)) {
    const token = write.token;
    if (token === undefined) continue;
    if (!granted.has(token)) {
      add(
        'ungranted-token',
        write,
        `${actor} wrote with token ${token}, which the lease service never granted it (${grants ? `it was granted ${grants}` : 'it was granted none'}): a token from its own counter, or made up. A client writes only with the token of the lease it holds: the service's sequence is what makes a newer holder's token larger.`,
      );
    }
    // A write after the row refused this token, with no new lease taken in between.
    const refusal = mine.findLast((e) => e.kind === 'write_rejected' && e.token === token && e.id < write.id);
    const retook = refusal && mine.some((e) => e.kind === 'lease_acquired' && e.id > refusal.id && e.id < write.id);
    if (refusal && !retook) {
      add(
        'wrote-after-refusal',
        write,
        `${actor} kept writing with token ${token} after the row refused it as stale: a refusal means a newer holder has written, so the lease is lost. A client stops writing and takes the lease again.`,
      );
    }
  }

  // A lease that ran out while its holder ran (not frozen), never renewed, then written under: by
  // the database's clock (the expiry's own time, whenever the server came to record it).
  for (const expiry of mine.filter((e) => e.kind === 'lease_expired' && e.token !== undefined)) {
    const token = expiry.token as number;
    if (mine.some((e) => e.kind === 'lease_renewed' && e.token === token)) continue;
    const ranOut = typeof expiry.detail.expiresAt === 'string' ? Date.parse(expiry.detail.expiresAt) : expiry.at;
    const lastPause = mine.findLast((e) => e.at <= ranOut && (e.kind === 'pause_started' || e.kind === 'pause_ended'));
    if (lastPause?.kind === 'pause_started') continue;
    const nextGrant = mine.find((e) => e.kind === 'lease_acquired' && e.at > ranOut);
    const write = mine.find(
      // Its own word (write_sent), or the database's (the write's outcome), for a client that does not say.
      (e) => isWrite(e) && e.token === token && e.at > ranOut && (!nextGrant || e.id < nextGrant.id),
    );
    if (!write) continue;
    add(
      'never-renewed',
      write,
      `${actor} never renewed its lease with token ${token}: it ran out by the database's clock while ${actor} was running, and ${actor} wrote with it after. A client renews well before its lease runs out (every third of it, say) and stops writing when its own clock says the lease is over.`,
    );
  }
  return faults.sort((a, b) => a.eventId - b.eventId);
}

/**
 * A lane that runs a person's own program (`npm run worker -- --exec`), as its start recorded it: the
 * events of its run are those of its name from its start (`fromId`) to its end (`toId`, once ended).
 */
export type ClientLane = { actor: string; program: string; running: boolean; fromId: number; toId?: number };

/**
 * The lanes of `events` that run a person's own program: their start names it (`detail.exec`, the
 * program and its script only), and a later stop or crash of the same name, or another start of it
 * (our worker under that name), ends it. Oldest first; the last run of each name.
 */
export function clientLanes(events: readonly WireEvent[]): ClientLane[] {
  const lanes = new Map<string, ClientLane>();
  for (const e of events) {
    const lane = lanes.get(e.actor);
    if (e.kind === 'worker_started' || e.kind === 'worker_restarted') {
      if (typeof e.detail.exec === 'string') {
        lanes.delete(e.actor);
        lanes.set(e.actor, { actor: e.actor, program: e.detail.exec, running: true, fromId: e.id });
      } else if (lane?.running) {
        lanes.set(e.actor, { ...lane, running: false, toId: e.id - 1 });
      }
    } else if ((e.kind === 'worker_stopped' || e.kind === 'worker_crashed') && lane?.running) {
      lanes.set(e.actor, { ...lane, running: false, toId: e.id });
    }
  }
  return [...lanes.values()];
}

/** The faults of a person's own program in its lane's run only (not of our worker under the same name). */
export function clientLaneFaults(events: readonly WireEvent[], lane: ClientLane): ClientFault[] {
  const run = events.filter((e) => e.id >= lane.fromId && (lane.toId === undefined || e.id <= lane.toId));
  return clientFaults(run, lane.actor);
}
