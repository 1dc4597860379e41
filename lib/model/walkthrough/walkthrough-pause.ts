import { LABS, type LabId } from '../../labs/index';
import { PAUSE_FENCED } from '../../labs/traits';
import type { WireEvent } from '../core/wire';
import {
  article,
  compared,
  detailTime,
  heldWords,
  need,
  outcomeWords,
  recordedSettings,
  relation,
  rowAtTheEnd,
  rowBefore,
  seconds,
  t,
  value,
  write,
} from './narration';
import { pauseWords } from './walkthrough-pause-words';
import type { Facts, Step } from './walkthrough-types';

/*
 * The guided walkthrough "The pause", as data: what each step does to the real lab, which event
 * tells that it happened, and what to say about it, read from the events the database recorded and
 * the row as it is now. Pure: the page runs the actions and feeds the events back in.
 */

export const WALKTHROUGH_SETTINGS = {
  A: { name: 'A', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 700 },
  // B writes once, then every 30 s, renewing in between: the last step reads the row as it is then.
  B: { name: 'B', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 30_000 },
} as const;

/** The lesson a run did not show is not stated as its finding. */
const NOT_SHOWN =
  'This run did not end the way the lab’s story usually does (the timing went otherwise), so it shows no lesson: Start over to run the story again.';

/** A worker's own words with their ISO times as the app writes times (10:28:38.089): one way of showing times. */
const inClockTime = (words: string) =>
  words.replace(/\d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d\.\d{3})Z/g, (_, clockTime: string) => clockTime);

/** B's writes after its first in this run, each refused: said, with their tokens, so that no refusal goes unexplained. */
function triedAgain(history: readonly WireEvent[], first: WireEvent): string {
  if (first.kind !== 'write_rejected') return '';
  const again = history.filter((e) => e.actor === 'B' && e.id > first.id);
  if (again.length === 0 || !again.every((e) => e.kind === 'write_rejected')) return '';
  const tokens = again.map((e) => t(e.token)).join(', ');
  const more = again.length === 1 ? 'write' : 'writes';
  return ` B went on: ${again.length} more ${more} so far, with token${again.length > 1 ? 's' : ''} ${tokens}, ${again.length === 1 ? 'refused' : 'each refused'} as stale too.`;
}

export function pauseSteps(lab: LabId): Step[] {
  const definition = LABS[lab];
  const words = pauseWords(lab, definition.summary);
  const fenced = lab === PAUSE_FENCED;
  const writes = (f: Facts) => f.writes ?? [];
  return [
    {
      id: 'setup',
      title: fenced ? 'Two workers, one row' : `${definition.title}: two workers, one row`,
      action: { kind: 'reset' },
      waitingFor: 'the lab to be reset',
      preview: 'The lab is reset: its workers stop and its history is cleared.',
      done: () => true,
      narrate: () =>
        `${fenced ? '' : 'The fenced lab’s story, with one mistake. '}Two worker processes, A and B, will take turns holding a lease on row ${definition.rowId} of ${definition.table}. ${words.setup} The lab has been reset${fenced ? ': no workers, no history' : ''}.`,
    },
    {
      id: 'a-writes',
      title: 'A takes the lease and writes',
      action: { kind: 'start', worker: 'A' },
      waitingFor: "A's first accepted write",
      preview: 'Worker A starts, takes the lease with a token from the database, and writes.',
      done: (f) => f.firstWriteA !== undefined,
      narrate: (f) => {
        const first = need(f.firstWriteA);
        const grant = need(f.grantA);
        const took =
          first.token === grant.token
            ? `A, a real process, took the lease with token ${t(grant.token)} and wrote ${value(first)} with it`
            : `A, a real process, took the lease, granted with token ${t(grant.token)}; its own counter numbered the grant ${t(first.token)}, and it wrote ${write(first)}`;
        const settings = recordedSettings(f.startA);
        const pace = settings
          ? ` It renews its lease every ${seconds(settings.renewEveryMs)} and writes again every ${seconds(settings.writeEveryMs)}, as it was started.`
          : '';
        return `${took}: ${outcomeWords(first)}.${pace}`;
      },
    },
    {
      id: 'a-freezes',
      title: 'A freezes',
      action: { kind: 'freeze-before-write', worker: 'A' },
      waitingFor: 'A to freeze before its next write',
      preview: 'A checks its lease and freezes right after, before its next write reaches the database.',
      done: (f) => f.pauseA !== undefined,
      narrate: (f) => {
        const grant = need(f.grantA);
        const held = need(f.heldA);
        const again =
          held.id === grant.id
            ? ''
            : held.token === grant.token
              ? ` By then A held a later grant of the lease than its first, with the same token, ${t(held.token)}.`
              : ` By then A held a later grant of the lease than its first: token ${t(held.token)}, not ${t(grant.token)}.`;
        const pause = need(f.pauseA);
        if (typeof pause.detail.exec === 'string') {
          // A person's program as A (npm run worker -- --exec): frozen by its runner, by signal.
          const token = pause.token === undefined ? '' : ` with token ${t(pause.token)}`;
          return `A, a program of your own (${JSON.stringify(pause.detail.exec)}), said it was about to write${token} and was frozen right after, before its write reached the database: SIGSTOP to its whole process group, as a stop-the-world garbage-collection pause would freeze it.${again} While frozen, it runs nothing: no timers, no renewals, no writes. (The runner that started it goes on answering the lab's heartbeat, so the lab shows A frozen, not gone.)`;
        }
        return `A checked its lease ("${inClockTime(String(need(pause.detail.belief)))}") and froze right after, before its next write reached the database, as a stop-the-world garbage-collection pause would freeze it.${again} While frozen, its main thread runs nothing: no timers, no renewals, no writes. (A thread of its own goes on answering the lab's heartbeat, so the lab shows A frozen, not gone.)`;
      },
    },
    {
      id: 'a-expires',
      title: "A's lease expires",
      action: { kind: 'none' },
      waitingFor: "A's lease to run out by the database's clock",
      preview: "While A is frozen, its lease runs out by the database's clock.",
      done: (f) => f.expiryA !== undefined,
      narrate: (f) => {
        const expiry = need(f.expiryA);
        const knew =
          expiry.id > need(f.pauseA).id
            ? 'A did not know: it was frozen'
            : 'A had checked it by its own clock just before and froze';
        return `By the database's clock, A's lease with token ${t(f.tokenA)} ran out at ${detailTime(expiry, 'expiresAt')}. ${knew}, and still believed it held the lease, its writes carrying token ${t(f.beliefTokenA)} (the hatched band).`;
      },
    },
    {
      id: 'b-takes-over',
      title: 'B takes over',
      action: { kind: 'start', worker: 'B' },
      waitingFor: "B's lease and B's write",
      preview: 'Worker B starts, takes the lease with a newer token, and writes.',
      done: (f) => f.writeB !== undefined,
      narrate: (f) => {
        const b = need(f.writeB);
        const took =
          f.tokenB === f.tokenA
            ? `B took over A's expired lease, and the lease service handed it A's token ${t(f.tokenA)} instead of minting a new one.`
            : `B took the lease with ${article(f.tokenB, f.tokenA)} token, ${t(f.tokenB)}, from ${words.source} (A's lease that ran out had token ${t(f.tokenA)}).`;
        const counter =
          b.token === f.tokenB ? '' : ` Its own counter, new in this process, numbered the grant ${t(b.token)}.`;
        const wrote = `B wrote ${write(b)}: ${outcomeWords(b)}.`;
        const after =
          b.kind === 'write_accepted'
            ? ` The row went from ${heldWords(rowBefore(writes(f), b))} to ${value(b)} (token ${t(b.token)}).`
            : ` B was the rightful holder, with token ${t(b.token)}, ${relation(b.token, b.storedToken)} the row's token ${t(b.storedToken)}, and it was turned away${definition.traits.fencing === 'text-compare' ? `: compared as text, "${t(b.token)}" sorts before "${t(b.storedToken)}"` : ''}.`;
        return `${took}${counter} ${wrote}${after}${triedAgain(writes(f), b)}`;
      },
    },
    {
      id: 'a-wakes',
      title: 'A wakes up',
      action: { kind: 'resume', worker: 'A' },
      waitingFor: "A's late write",
      preview: 'A wakes up and sends its late write with its old token.',
      done: (f) => f.lateWriteA !== undefined,
      narrate: (f) => {
        const late = need(f.lateWriteA);
        const before = rowBefore(writes(f), late);
        const mine = need(late.token);
        const against = need(f.writeB).token;
        const token =
          compared(mine, against) === 'older'
            ? `its old token ${mine}`
            : `its token ${mine} (${relation(mine, against)} B's token ${t(against)})`;
        const sent = `A woke up and sent its write ${value(late)} with ${token}: ${outcomeWords(late)}.`;
        if (late.kind === 'write_rejected') {
          const lost = f.lostA
            ? ` A recorded that it had lost the lease ("${String(f.lostA.detail.reason ?? '')}").`
            : '';
          return `${sent} The database compared the two tokens in the same UPDATE as the write and changed nothing.${lost}`;
        }
        const went = ` The row went from ${heldWords(before)} to ${value(late)} (token ${t(late.token)})`;
        const lost =
          before?.actor === 'B'
            ? `: B's newer value was overwritten, a lost update.`
            : `: it never held B's value, which was refused.`;
        return `${sent} ${words.lateAccepted(late, before)}${went}${lost}`;
      },
    },
    {
      id: 'the-row',
      title: fenced ? 'The newer value is intact' : 'What the row holds now',
      action: { kind: 'none' },
      waitingFor: "A's late write and the row",
      preview: "What the row holds after A's late write.",
      done: () => true,
      narrate: (f, row) => {
        const late = need(f.lateWriteA);
        // Short enough for the projector at 1280×720 (e2e/presenter-legibility.spec.ts).
        const end = rowAtTheEnd(writes(f), late, f.writeB, row);
        return `${end} ${words.shows(f, rowBefore(writes(f), late)) ? words.lesson : NOT_SHOWN}`;
      },
    },
  ];
}
