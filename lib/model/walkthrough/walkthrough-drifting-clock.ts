import { LABS, type LabId } from '../../labs/index';
import { isFencedKind } from '../../labs/traits';
import type { WireEvent } from '../core/wire';
import {
  article,
  compared,
  detailTime,
  heldWords,
  isOutcome,
  need,
  outcomeWords,
  recordedSettings,
  relation,
  rowAtTheEnd,
  rowBefore,
  seconds,
  settingsOf,
  t,
  value,
  write,
} from './narration';
import type { Facts, Step } from './walkthrough-types';

/*
 * The drifting clock's walkthrough, as data (the pause story's counterpart, lib/model/walkthrough/walkthrough.ts),
 * told in two labs side by side: `drifting-clock`, whose writes are not fenced, and
 * `drifting-clock-fenced`, the same worker with the same slow clock, whose writes are.
 * Nothing freezes: A's clock runs slow, so it times its renewal and judges its lease late, while the
 * lease's end is the database's. A's late write comes from the drift alone.
 *
 * A takes a 5 s lease and means to renew it 4.5 s later, and to write every second, all by its own
 * clock; 75 % slow, that clock makes the renewal 18 s and each write 4 s in real time. So by the
 * database's clock the lease ends at 5 s; B, waiting, takes it over and writes; A writes at 8 s,
 * still believing (its clock says 2 s of its 5 have passed), and its write overwrites B's; at 18 s
 * A's renewal is refused and it finds out. B may join up to 16 s after A's grant and the story still
 * ends in the lost update (or, fenced, in A's rejection): B starts as soon as A holds the lease.
 */

export const DRIFTING_CLOCK_SLOW_PERCENT = 75;

export const DRIFTING_CLOCK_SETTINGS = {
  A: {
    name: 'A',
    leaseTtlMs: 5_000,
    renewEveryMs: 4_500,
    writeEveryMs: 1_000,
    clockSlowPercent: DRIFTING_CLOCK_SLOW_PERCENT,
  },
  // B keeps time, writes once and then renews quietly, so the table shows who wrote last.
  B: { name: 'B', leaseTtlMs: 5_000, renewEveryMs: 1_000, writeEveryMs: 30_000 },
};

/** What happened so far in the drifting clock's story, read from the events of this run. */
export function driftingClockFacts(events: readonly WireEvent[]): Facts {
  const find = (match: (e: WireEvent) => boolean, after = 0) => events.find((e) => e.id > after && match(e));
  const grantA = find((e) => e.actor === 'A' && e.kind === 'lease_acquired');
  const grantB = find((e) => e.actor === 'B' && e.kind === 'lease_acquired');
  // The lease B took over: A's last grant before B's (A may have taken more than one before B came).
  const heldA = events.findLast(
    (e) => e.actor === 'A' && e.kind === 'lease_acquired' && (grantB === undefined || e.id < grantB.id),
  );
  const facts: Facts = {};
  const set = <K extends keyof Facts>(key: K, fact: Facts[K] | undefined) => {
    if (fact !== undefined) facts[key] = fact;
  };
  set('grantA', grantA);
  set('heldA', heldA);
  set('tokenA', heldA?.token);
  set('grantB', grantB);
  set('tokenB', grantB?.token);
  set('startA', settingsOf(events, 'A'));
  set(
    'firstWriteA',
    find((e) => e.actor === 'A' && e.kind === 'write_accepted'),
  );
  set(
    'startB',
    find((e) => e.actor === 'B' && (e.kind === 'worker_started' || e.kind === 'worker_restarted')),
  );
  if (heldA) {
    set(
      'expiryA',
      find((e) => e.actor === 'A' && e.kind === 'lease_expired' && e.token === heldA.token, heldA.id),
    );
  }
  const writeB = grantB && find((e) => e.actor === 'B' && isOutcome(e), grantB.id);
  set('writeB', writeB);
  const lateWriteA = writeB && find((e) => e.actor === 'A' && isOutcome(e), writeB.id);
  set('lateWriteA', lateWriteA);
  if (lateWriteA) {
    set('sentLateA', events.filter((e) => e.actor === 'A' && e.kind === 'write_sent' && e.id < lateWriteA.id).at(-1));
  }
  return facts;
}

/** A's settings as its start recorded them, else the story's (a history pruned of A's start). */
function settingsA(f: Facts) {
  const recorded = recordedSettings(f.startA);
  return {
    ...DRIFTING_CLOCK_SETTINGS.A,
    ...recorded,
    clockSlowPercent: recorded?.clockSlowPercent ?? DRIFTING_CLOCK_SETTINGS.A.clockSlowPercent,
  };
}

/** B's asking for the lease while A held it, as the events show it: only when B started before A's lease ran out and had no grant before. */
function bWaited(f: Facts): string {
  const start = need(f.startB);
  const retry = recordedSettings(start)?.acquireRetryMs;
  const expired = f.expiryA;
  const beforeExpiry = expired === undefined || start.id < expired.id;
  const noGrantYet = f.grantB === undefined || (expired !== undefined && f.grantB.id > expired.id);
  if (!(beforeExpiry && noGrantYet)) return 'B started too.';
  return `B started too; it asked for the lease${retry === undefined ? '' : ` every ${retry} ms`} and was told that A held it.`;
}

/** What the fenced lab would do with this write, computed from the two tokens. */
function fencedWouldRefuse(rowToken: number | undefined, late: number | undefined): string {
  const c = compared(rowToken, late);
  return c === 'newer'
    ? `In the drifting clock, fenced, the same write is refused: the row's token ${t(rowToken)} is newer than ${t(late)}.`
    : `The row's token ${t(rowToken)} is ${relation(rowToken, late)} ${t(late)}: fencing alone would not have refused this write.`;
}

export function driftingClockSteps(lab: LabId): Step[] {
  const definition = LABS[lab];
  const fenced = isFencedKind(lab);
  const writes = fenced
    ? 'every write presents its token, and one statement, UPDATE … WHERE last_token <= token, refuses a write whose token is older than the row’s last_token (a stale write)'
    : 'but the write is a plain UPDATE that never looks at it';
  const story = DRIFTING_CLOCK_SETTINGS.A;
  const onScreen = "The drift is applied to A's reading of the clock; everything else is real.";
  const history = (f: Facts) => f.writes ?? [];
  return [
    {
      id: 'setup',
      title: `${definition.title}: two workers, one row`,
      action: { kind: 'reset' },
      waitingFor: 'the lab to be reset',
      preview: 'The lab is reset: its workers stop and its history is cleared.',
      done: () => true,
      narrate: () =>
        `Two worker processes, A and B, will take turns holding a lease on row ${definition.rowId} of ${definition.table}. Every grant of the lease carries a token from the database sequence write_epoch; ${writes}. Nothing will freeze in this lab. A judges its lease by its own clock, which runs ${story.clockSlowPercent} % slow: for every real second it moves ${(1 - story.clockSlowPercent / 100) * 1000} ms. ${onScreen} The lab has been reset.`,
    },
    {
      id: 'both-start',
      title: 'A takes the lease and writes; B waits',
      action: { kind: 'start-both', once: (f) => f.grantA !== undefined },
      waitingFor: "A's first write, and B waiting for the lease",
      preview:
        'Worker A starts with its slow clock, takes the lease and writes; then B starts and waits for the lease.',
      done: (f) => f.firstWriteA !== undefined && f.startB !== undefined,
      narrate: (f) => {
        const first = need(f.firstWriteA);
        const a = settingsA(f);
        const rate = 1 - a.clockSlowPercent / 100;
        return `A took the lease for ${seconds(a.leaseTtlMs)} by the database's clock, with token ${t(f.grantA?.token)}, and wrote ${write(first)}: ${outcomeWords(first)}. By its own clock it renews ${seconds(a.renewEveryMs)} after each grant, just before the lease runs out, and writes every ${seconds(a.writeEveryMs)}: ${a.clockSlowPercent} % slow, that is ${seconds(a.renewEveryMs / rate)} and ${seconds(a.writeEveryMs / rate)} of real time. ${bWaited(f)}`;
      },
    },
    {
      id: 'a-expires',
      title: "A's lease expires by the database's clock",
      action: { kind: 'none' },
      waitingFor: "A's lease to run out by the database's clock",
      preview: "A's lease runs out by the database's clock, before A's slow clock says to renew it.",
      done: (f) => f.expiryA !== undefined,
      narrate: (f) => {
        const a = settingsA(f);
        const moved = a.leaseTtlMs * (1 - a.clockSlowPercent / 100);
        return `By the database's clock, A's lease ran out at ${detailTime(f.expiryA, 'expiresAt')}. A did not renew in time: its clock, ${a.clockSlowPercent} % slow, had moved ${seconds(moved)} of the ${seconds(a.leaseTtlMs)}. Nothing froze: A kept running, and still believed it held the lease with token ${t(f.tokenA)} (the hatched band).`;
      },
    },
    {
      id: 'b-takes-over',
      title: 'B takes over',
      action: { kind: 'none' },
      waitingFor: "B's lease and B's write",
      preview: 'B, which was waiting, takes the lease with a newer token and writes.',
      done: (f) => f.writeB !== undefined,
      narrate: (f) => {
        const b = need(f.writeB);
        const went =
          b.kind === 'write_accepted'
            ? ` The row went from ${heldWords(rowBefore(history(f), b))} to ${value(b)} (token ${t(b.token)}).`
            : '';
        return `B took the lease with ${article(f.tokenB, f.tokenA)} token, ${t(f.tokenB)}, from the database sequence write_epoch, and wrote ${write(b)}: ${outcomeWords(b)}.${went}`;
      },
    },
    {
      id: 'a-writes-late',
      title: 'A writes, by its clock still in time',
      action: { kind: 'none' },
      waitingFor: "A's next write",
      preview: 'A, whose clock says its lease still runs, writes with its old token.',
      done: (f) => f.lateWriteA !== undefined,
      narrate: (f) => {
        const late = need(f.lateWriteA);
        const expiresAt = need(f.expiryA).detail.expiresAt;
        const after = `${late.at - Date.parse(String(expiresAt))} ms after its lease ran out by the database's clock`;
        const belief = `A's clock read ${detailTime(f.sentLateA, 'myClock')}, and by it A's lease ran until ${detailTime(f.sentLateA, 'believedUntil')}.`;
        const old = compared(late.token, f.tokenB) === 'older' ? 'its old token' : 'its token';
        const sent = `${belief} A wrote ${value(late)} with ${old} ${t(late.token)}, ${after}: ${outcomeWords(late)}.`;
        if (late.kind === 'write_rejected')
          return `${sent} A still believed it held the lease; the row's token refused the write all the same: fencing does not ask what A believes.`;
        const before = rowBefore(history(f), late);
        const lost = before?.actor === 'B' ? ": B's newer value was overwritten, a lost update" : '';
        return `${sent} The row went from ${heldWords(before)} to ${value(late)} (token ${t(late.token)})${lost}. Nothing froze: the drift alone made the write late. ${fencedWouldRefuse(f.writeB?.token, late.token)}`;
      },
    },
    {
      id: 'the-row',
      title: 'What the row holds now',
      action: { kind: 'none' },
      waitingFor: "A's late write and the row",
      preview: "What the row holds after A's late write.",
      done: () => true,
      narrate: (f, row) => {
        const end = rowAtTheEnd(history(f), f.lateWriteA, f.writeB, row);
        return fenced
          ? `${end} A's clock still runs slow and A believed it held the lease; fencing made the belief harmless. Without fencing (the drifting-clock lab) the same write is a lost update. ${onScreen}`
          : `${end} Two things close this. Fencing: in the drifting clock, fenced, the same slow-clock A writes just as late, and the row's token refuses it, whatever A believes. And judging the lease by the database's clock: the lease's end is the database's (${detailTime(f.expiryA, 'expiresAt')}), and a worker whose clock keeps time, as every other lab's worker's does, stops believing within a round trip of it. A finds out only when its renewal is refused. ${onScreen}`;
      },
    },
  ];
}
