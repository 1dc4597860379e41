import { DELAYED_PACKET_SETTINGS } from './delayed-packet-settings';
import { LABS } from './lab-kinds';
import { isOutcome, t, time, value } from './narration';
import type { Facts, Step } from './walkthrough';
import type { WireEvent } from './wire';

/*
 * "A delayed packet", the walkthrough of the two delayed-packet labs (fenced and unfenced), as data.
 * Nothing freezes: A's next write is held on the wire by the proxy between A and PostgreSQL, A waits
 * for its answer and so renews no more, its lease runs out, B takes over and writes, and the proxy
 * releases the held bytes: PostgreSQL receives A's write late, with A's old token.
 */

const REAL =
  'What is real here: the held bytes are really held, on a real TCP socket, by a proxy this server runs between A and PostgreSQL; nothing is frozen and no result is made up; PostgreSQL really receives them late and runs them.';

/** What happened so far in the delayed packet's story, read from the events of this run. */
export function delayedPacketFacts(events: readonly WireEvent[]): Facts {
  const find = (match: (e: WireEvent) => boolean, after = 0) => events.find((e) => e.id > after && match(e));
  const grantA = find((e) => e.actor === 'A' && e.kind === 'lease_acquired');
  const facts: Facts = {};
  const set = <K extends keyof Facts>(key: K, fact: Facts[K] | undefined) => {
    if (fact !== undefined) facts[key] = fact;
  };
  set('grantA', grantA);
  set('tokenA', grantA?.token);
  set(
    'firstWriteA',
    find((e) => e.actor === 'A' && e.kind === 'write_accepted'),
  );
  // A's lease runs out only because its next write is held: A waits for the answer and renews no more.
  const expiryA = grantA && find((e) => e.kind === 'lease_expired' && e.token === grantA.token, grantA.id);
  set('expiryA', expiryA);
  if (expiryA) {
    // The write the proxy holds: A's last one sent before its lease ran out.
    set('sentLateA', events.filter((e) => e.actor === 'A' && e.kind === 'write_sent' && e.id < expiryA.id).at(-1));
  }
  const grantB = expiryA && find((e) => e.actor === 'B' && e.kind === 'lease_acquired', expiryA.id);
  set(
    'startB',
    find((e) => e.actor === 'B' && (e.kind === 'worker_started' || e.kind === 'worker_restarted')),
  );
  set('tokenB', grantB?.token);
  const writeB = grantB && find((e) => e.actor === 'B' && isOutcome(e), grantB.id);
  set('writeB', writeB);
  set('lateWriteA', writeB && find((e) => e.actor === 'A' && isOutcome(e), writeB.id));
  return facts;
}

export function delayedPacketSteps(fenced: boolean): Step[] {
  const definition = LABS[fenced ? 'delayed-packet' : 'delayed-packet-unfenced'];
  const a = DELAYED_PACKET_SETTINGS.A;
  const heldMs = (f: Facts) =>
    f.lateWriteA && f.sentLateA ? ` ${f.lateWriteA.at - f.sentLateA.at} ms after A sent it,` : '';
  const afterExpiry = (f: Facts) => {
    const expiresAt = f.expiryA?.detail.expiresAt;
    return f.lateWriteA && typeof expiresAt === 'string'
      ? ` ${f.lateWriteA.at - Date.parse(expiresAt)} ms after A's lease ran out by the database's clock`
      : '';
  };
  return [
    {
      id: 'setup',
      title: `${definition.title}: two workers, one row`,
      action: { kind: 'reset' },
      waitingFor: 'the lab to be reset',
      preview: 'The lab is reset: its workers stop and its history is cleared.',
      done: () => true,
      narrate: () =>
        `Two worker processes, A and B, will take turns holding a lease on row ${definition.rowId} of ${definition.table}. Each reaches PostgreSQL through a proxy of this server, which can hold a connection's bytes. Nothing will freeze in this lab: the network will delay one write. ${fenced ? 'Every write presents its token, and one statement, UPDATE … WHERE last_token <= token, decides.' : 'The write has no token check.'} ${REAL} The lab has been reset.`,
    },
    {
      id: 'a-writes',
      title: 'A takes the lease and writes',
      action: { kind: 'start', worker: 'A' },
      waitingFor: "A's first write",
      preview: 'Worker A starts, takes the lease and writes through its proxy.',
      done: (f) => f.firstWriteA !== undefined,
      narrate: (f) =>
        `term ${t(f.tokenA)} token ${t(f.firstWriteA?.token)} → write accepted. A took the lease for ${a.leaseTtlMs / 1000} s by the database's clock, renews it every ${a.renewEveryMs / 1000} s and writes every ${a.writeEveryMs / 1000} s; it wrote ${value(f.firstWriteA)}. Its bytes pass through the proxy untouched.`,
    },
    {
      id: 'write-held',
      title: "The network holds A's write; A's lease runs out",
      action: { kind: 'hold', worker: 'A' },
      waitingFor: "A's next write to be held, and A's lease to run out",
      preview:
        "The proxy holds A's connection from its next write on. A sends the write and waits for its answer; it cannot renew, and its lease runs out by the database's clock.",
      done: (f) => f.expiryA !== undefined,
      narrate: (f) =>
        `A sent ${value(f.sentLateA)} with token ${t(f.sentLateA?.token)} at ${time(f.sentLateA?.at)}, while its lease still ran. The proxy holds those bytes: PostgreSQL has not seen them. A is not frozen: it is waiting for the answer, so it renews no more, and by the database's clock its lease ran out at ${time(f.expiryA?.detail.expiresAt as string | undefined)}. A's heartbeat, on another connection, goes on.`,
    },
    {
      id: 'b-takes-over',
      title: 'B takes over and writes',
      action: { kind: 'start', worker: 'B' },
      waitingFor: "B's lease and B's write",
      preview: "B starts, takes the expired lease with a newer token and writes, while A's write is still held.",
      done: (f) => f.writeB !== undefined,
      narrate: (f) =>
        `lease expires, term ${t(f.tokenB)} token ${t(f.writeB?.token)} → write ${f.writeB?.kind === 'write_accepted' ? 'accepted' : 'rejected'}. B took the lease with a new token from the sequence and wrote ${value(f.writeB)}. The row now holds token ${t(f.writeB?.token)}. A's write is still on the wire.`,
    },
    {
      id: 'held-write-arrives',
      title: 'The held write arrives',
      action: { kind: 'release', worker: 'A' },
      waitingFor: "A's held write to reach PostgreSQL",
      preview: "The proxy releases A's connection: PostgreSQL receives A's write, late, with A's old token.",
      done: (f) => f.lateWriteA !== undefined,
      narrate: (f) => {
        const late = f.lateWriteA;
        const when = `PostgreSQL received A's write${heldMs(f)}${afterExpiry(f)}:`;
        return late?.kind === 'write_rejected'
          ? `${when} write token ${t(late.token)} → rejected (stale: row holds token ${t(late.storedToken)}). The row's token refused it in the same statement as the write: when it arrives does not matter. A now knows it lost the lease.`
          : `${when} write token ${t(late?.token)} → accepted. A's write, sent while its lease ran, overwrote B's newer value: lost update. The lease was A's when it sent the write, and no longer when the write arrived.`;
      },
    },
    {
      id: 'the-row',
      title: 'What the row holds now, and a retry',
      action: { kind: 'none' },
      waitingFor: 'nothing',
      preview: "What the row holds after A's delayed write.",
      done: () => true,
      narrate: (f) =>
        fenced
          ? `The row keeps B's value ${value(f.writeB)} with token ${t(f.writeB?.token)}. A lease cannot say when a write arrives, only when it was sent; the token travels with the write, and the row judges it on arrival. A client that timed out and retried the same write with the same token ${t(f.tokenA)} would be rejected the same way: the retry carries the old token too, and so does the held write when it lands after it. (Free play runs it: a client timeout in the Start form.) Compare the same delay without fencing.`
          : `The row holds A's stale value ${value(f.lateWriteA)} with token ${t(f.lateWriteA?.token)}: ${definition.failure}. A client timeout and a retry with the same token make it worse: the retry, on a new connection, lands as soon as it is sent, and the original still arrives when the network lets it go, so the same write can be applied twice, each time over whatever was written since. With fencing (the fenced delayed-packet lab) both the held write and any retry with token ${t(f.tokenA)} are rejected. (Free play runs it: a client timeout in the Start form.)`,
    },
  ];
}
