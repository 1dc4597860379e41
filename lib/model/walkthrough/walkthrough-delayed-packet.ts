import { LABS, type LabId } from '../../labs/index';
import { isFencedKind } from '../../labs/traits';
import type { WireEvent } from '../core/wire';
import { DELAYED_PACKET_SETTINGS } from './delayed-packet-settings';
import {
  article,
  detailTime,
  heldWords,
  isOutcome,
  need,
  outcomeWords,
  recordedSettings,
  rowAtTheEnd,
  rowBefore,
  seconds,
  settingsOf,
  t,
  time,
  value,
  write,
} from './narration';
import type { Facts, Step } from './walkthrough-types';

/*
 * "A delayed packet", the walkthrough of the two delayed-packet labs (fenced and unfenced), as data.
 * Nothing freezes: A's next write is held on the wire by the packet relay between A and PostgreSQL, A waits
 * for its answer and so renews no more, its lease runs out, B takes over and writes, and the relay
 * releases the held bytes: PostgreSQL receives A's write late, with A's old token.
 */

const REAL =
  'What is real here: the held bytes are really held, on a real TCP socket, by a proxy this server runs between A and PostgreSQL; nothing is frozen and no result is made up; PostgreSQL really receives them late and runs them.';

/**
 * What happened so far in the delayed packet's story, read from the events of this run, each fact
 * keyed on the events that make it true however the run went (A may have lost and retaken its lease
 * before the hold, a stalled process): the held write is A's write that was still unanswered when the
 * lease it was sent under ran out (answered later, before or after another worker took the lease), the
 * last such write before B's takeover. A hold after the takeover (free play) is not the story's.
 */
export function delayedPacketFacts(events: readonly WireEvent[]): Facts {
  const find = (match: (e: WireEvent) => boolean, after = 0) => events.find((e) => e.id > after && match(e));
  const facts: Facts = {};
  const set = <K extends keyof Facts>(key: K, fact: Facts[K] | undefined) => {
    if (fact !== undefined) facts[key] = fact;
  };
  const firstWriteA = find((e) => e.actor === 'A' && e.kind === 'write_accepted');
  set('firstWriteA', firstWriteA);
  const grantA = firstWriteA
    ? events.findLast((e) => e.actor === 'A' && e.kind === 'lease_acquired' && e.id < firstWriteA.id)
    : find((e) => e.actor === 'A' && e.kind === 'lease_acquired');
  set('grantA', grantA);
  set('startA', settingsOf(events, 'A'));
  set(
    'startB',
    find((e) => e.actor === 'B' && (e.kind === 'worker_started' || e.kind === 'worker_restarted')),
  );
  const held = heldWrite(events);
  if (!held) {
    set('tokenA', events.findLast((e) => e.actor === 'A' && e.kind === 'lease_acquired')?.token);
    return facts;
  }
  set('sentLateA', held.sent);
  set('heldA', held.lease);
  set('tokenA', held.lease.token);
  set('expiryA', held.expiry);
  const grantB = find((e) => e.actor === 'B' && e.kind === 'lease_acquired', held.expiry.id);
  set('grantB', grantB);
  set('tokenB', grantB?.token);
  const writeB = grantB && find((e) => e.actor === 'B' && isOutcome(e), grantB.id);
  set('writeB', writeB);
  set('lateWriteA', writeB && held.outcome);
  set('lostA', held.outcome && find((e) => e.actor === 'A' && e.kind === 'lease_lost', held.outcome.id));
  // A client timeout: the same value sent again on a new connection (free play, the --retry scenario).
  const again = (e: WireEvent) =>
    e.actor === 'A' && attemptOf(e) === 'retry' && e.detail.value === held.sent.detail.value;
  const retrySent = find((e) => e.kind === 'write_sent' && again(e), held.sent.id);
  set('retrySentA', retrySent);
  set('retryA', retrySent && find((e) => isOutcome(e) && again(e), retrySent.id));
  return facts;
}

/** Which attempt a write or its answer is: the first send, or a client's retry after a timeout. */
const attemptOf = (e: WireEvent) => (e.detail.attempt === 'retry' ? 'retry' : 'first');

type Held = { sent: WireEvent; lease: WireEvent; expiry: WireEvent; outcome: WireEvent | undefined };

/**
 * A's write held on the wire (the proxy's packet_held names it: A's last write sent before it): the
 * last one still unanswered when the lease it was sent under ran out,
 * before the story's takeover (B's first grant after the first such expiry). Once that grant is
 * recorded the choice is fixed: a later hold (free play, after the story) has its expiry after it. So
 * the facts only grow with the events, and a step once reached stays reached (walkthrough-monotone.test.ts):
 * a write answered before B's grant stays the held write (the steps then say it had already arrived).
 */
function heldWrite(events: readonly WireEvent[]): Held | undefined {
  const found: Held[] = [];
  for (const caught of events) {
    // Only a write the proxy recorded catching was held on the wire: one unanswered because A's process
    // was stopped (a stall, SIGSTOP) is not.
    if (caught.actor !== 'A' || caught.kind !== 'packet_held') continue;
    const sent = events.findLast(
      (e) => e.actor === 'A' && e.kind === 'write_sent' && attemptOf(e) === 'first' && e.id < caught.id,
    );
    if (!sent) continue;
    const lease = events.findLast((e) => e.actor === 'A' && e.kind === 'lease_acquired' && e.id < sent.id);
    if (!lease) continue;
    // Its own answer: a client's retry of the same value, on a new connection, is answered before it.
    const outcome = events.find(
      (e) =>
        e.id > sent.id &&
        e.actor === 'A' &&
        isOutcome(e) &&
        e.detail.value === sent.detail.value &&
        attemptOf(e) === attemptOf(sent),
    );
    const expiry = events.find(
      (e) =>
        e.id > sent.id &&
        e.kind === 'lease_expired' &&
        e.actor === 'A' &&
        e.token === lease.token &&
        (outcome === undefined || e.id < outcome.id),
    );
    if (expiry) found.push({ sent, lease, expiry, outcome });
  }
  if (found.length === 0) return undefined;
  const firstExpiry = Math.min(...found.map((held) => held.expiry.id));
  const takeover = events.find((e) => e.id > firstExpiry && e.actor === 'B' && e.kind === 'lease_acquired');
  return takeover ? found.filter((held) => held.expiry.id < takeover.id).at(-1) : found.at(-1);
}

/** A's client's retry of the held write, answered before the held bytes arrived, and what it did to the row. */
function retryWords(f: Facts, retried: WireEvent): string {
  const after = need(f.retrySentA).detail.timedOutAfterMs;
  const waited = typeof after === 'number' ? ` after ${seconds(after)}` : '';
  const said = `Before it, A's client had given up waiting${waited} and sent the same write again, with the same token, on a new connection: ${value(retried)} with token ${t(retried.token)}, ${outcomeWords(retried)}.`;
  if (retried.kind !== 'write_accepted') return said;
  const before = rowBefore(f.writes ?? [], retried);
  const lost = before?.actor === 'B' ? ": B's newer value was overwritten, a lost update" : '';
  return `${said} The row went from ${heldWords(before)} to ${value(retried)} (token ${t(retried.token)})${lost}.`;
}

export function delayedPacketSteps(lab: LabId): Step[] {
  const definition = LABS[lab];
  const fenced = isFencedKind(lab);
  const history = (f: Facts) => f.writes ?? [];
  const when = (f: Facts) => {
    const late = need(f.lateWriteA);
    const held = late.at - need(f.sentLateA).at;
    const afterExpiry = late.at - Date.parse(String(need(need(f.expiryA).detail.expiresAt)));
    return `PostgreSQL received A's write ${held} ms after A sent it, ${afterExpiry} ms after A's lease ran out by the database's clock`;
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
        `Two worker processes, A and B, will take turns holding a lease on row ${definition.rowId} of ${definition.table}; every grant of the lease carries a token from the database sequence write_epoch. Each worker reaches PostgreSQL through a proxy of this server, which can hold a connection's bytes. Nothing will freeze in this lab: the network will delay one write. ${fenced ? 'Every write presents its token, and one statement, UPDATE … WHERE last_token <= token, refuses a write whose token is older than the row’s last_token (a stale write).' : 'The write is a plain UPDATE with no token check.'} ${REAL} The lab has been reset.`,
    },
    {
      id: 'a-writes',
      title: 'A takes the lease and writes',
      action: { kind: 'start', worker: 'A' },
      waitingFor: "A's first write",
      preview: 'Worker A starts, takes the lease and writes through its proxy.',
      done: (f) => f.firstWriteA !== undefined,
      narrate: (f) => {
        const first = need(f.firstWriteA);
        const a = recordedSettings(f.startA) ?? DELAYED_PACKET_SETTINGS.A;
        return `A took the lease for ${seconds(a.leaseTtlMs)} by the database's clock, with token ${t(f.grantA?.token)}, and wrote ${write(first)}: ${outcomeWords(first)}. It renews its lease every ${seconds(a.renewEveryMs)} and writes every ${seconds(a.writeEveryMs)}; its bytes pass through the proxy untouched.`;
      },
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
        `A sent ${write(f.sentLateA)} at ${time(need(f.sentLateA).at)}, while its lease still ran. The proxy held those bytes: PostgreSQL had not seen them. A was not frozen: it waited for the answer, so it renewed no more, and by the database's clock its lease ran out at ${detailTime(f.expiryA, 'expiresAt')}. A's heartbeat, on another connection, went on.`,
    },
    {
      id: 'b-takes-over',
      title: 'B takes over and writes',
      action: { kind: 'start', worker: 'B' },
      waitingFor: "B's lease and B's write",
      preview: "B starts, takes the expired lease with a newer token and writes, while A's write is still held.",
      done: (f) => f.writeB !== undefined,
      narrate: (f) => {
        const b = need(f.writeB);
        const went =
          b.kind === 'write_accepted'
            ? ` The row went from ${heldWords(rowBefore(history(f), b))} to ${value(b)} (token ${t(b.token)}).`
            : '';
        const wire =
          f.lateWriteA && f.lateWriteA.id < b.id
            ? " A's held write had already arrived."
            : " A's write was still on the wire.";
        return `B took the lease with ${article(f.tokenB, f.tokenA)} token, ${t(f.tokenB)}, from the database sequence write_epoch, and wrote ${write(b)}: ${outcomeWords(b)}.${went}${wire}`;
      },
    },
    {
      id: 'held-write-arrives',
      title: 'The held write arrives',
      action: { kind: 'release', worker: 'A' },
      waitingFor: "A's held write to reach PostgreSQL",
      preview: "The proxy releases A's connection: PostgreSQL receives A's write, late, with A's old token.",
      done: (f) => f.lateWriteA !== undefined,
      narrate: (f) => {
        const late = need(f.lateWriteA);
        const retried = f.retryA && f.retryA.id < late.id ? f.retryA : undefined;
        const got = `${when(f)}: ${value(late)} with token ${t(late.token)}, ${outcomeWords(late)}.${retried ? ` ${retryWords(f, retried)}` : ''}`;
        if (late.kind === 'write_rejected')
          return `${got} The row's token refused it in the same statement as the write: when it arrives does not matter.${f.lostA ? ' A recorded that it had lost the lease.' : ''}`;
        const before = rowBefore(history(f), late);
        const lost =
          before?.actor === 'B'
            ? ": B's newer value was overwritten, a lost update"
            : retried && before?.id === retried.id
              ? ': the same write applied twice'
              : '';
        return `${got} ${retried ? 'Then the' : 'The'} row went from ${heldWords(before)} to ${value(late)} (token ${t(late.token)})${lost}. The lease was A's when it sent the write, and no longer when the write arrived.`;
      },
    },
    {
      id: 'the-row',
      title: 'What the row holds now, and a retry',
      action: { kind: 'none' },
      waitingFor: "A's held write and the row",
      preview: "What the row holds after A's delayed write.",
      done: () => true,
      narrate: (f, row) => {
        const end = rowAtTheEnd(history(f), f.lateWriteA, f.writeB, row);
        return fenced
          ? `${end} A lease cannot say when a write arrives, only when it was sent; the token travels with the write, and the row judges it on arrival. A client that timed out and retried the same write with the same token ${t(f.lateWriteA?.token)} would be refused the same way: the retry carries the old token too, and so does the held write when it lands after it. (Free play runs it: a client timeout in the Start form.) Compare the same delay without fencing.`
          : `${end} A client timeout and a retry with the same token make it worse: the retry, on a new connection, lands as soon as it is sent, and the original still arrives when the network lets it go, so the same write can be applied twice, each time over whatever was written since. With fencing (the fenced delayed-packet lab) both the held write and any retry with token ${t(f.lateWriteA?.token)} are refused. (Free play runs it: a client timeout in the Start form.)`;
      },
    },
  ];
}
