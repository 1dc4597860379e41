import { checkHistory } from '../checker/checker';
import { verdictLine } from '../checker/checker-report';
import type { WireEvent } from '../core/wire';
import { NotRecordedYet, need } from '../walkthrough/narration';
import { type FailoverHolder, failoverStepOf, OTHER_HOLDERS } from './failover-events';
import type { FailoverStep } from './failover-steps';

/*
 * The failover lab's narrated walkthrough, for asynchronous and synchronous replication, and where
 * a lab's history stands in it; each step's words read from the lab's events, as of the step's
 * moment (the event that completed it: what happened later is not told by it, as the panels beside
 * it show the lab then), and the verdict is the one checker's (lib/model/checker), as every lab's.
 * Pure.
 */

export type FailoverAction =
  | { kind: 'start'; mode: 'async' | 'sync' }
  | { kind: 'grant'; holder: FailoverHolder }
  | { kind: 'write'; holder: FailoverHolder }
  | { kind: 'cut' }
  | { kind: 'heal' }
  | { kind: 'kill' }
  | { kind: 'promote' };

/** Each step of the failover walkthrough, by what it tells (the heal only in the synchronous story). */
export type FailoverStepId =
  | 'start'
  | 'a-takes-the-lease'
  | 'a-writes'
  | 'replication-cut'
  | 'b-takes-over'
  | 'replication-heals'
  | 'b-writes'
  | 'primary-dies'
  | 'standby-promoted'
  | 'a-writes-late'
  | 'c-takes-the-lease'
  | 'the-verdict';

/**
 * A step of the failover walkthrough: what it will do (`preview`, before it has run) and its words
 * once it has, read from the steps the lab recorded (`narrate`): tokens, values, what each server
 * held. Nothing is said of a step before its record is there.
 */
export type FailoverWalkthroughStep = {
  id: FailoverStepId;
  title: string;
  preview: string;
  narrate: (story: FailoverStory) => string;
  action?: FailoverAction;
};

/** The recorded story: the step each walkthrough step's action produced (by index, from 0), and the whole history. */
export type FailoverStory = {
  done: readonly (FailoverStep | undefined)[];
  /** Where each done step is in the history (free play may have put other steps between them). */
  at: readonly number[];
  history: readonly FailoverStep[];
  /** The events the story is told from, in id order (`history[i]` is what `events[i]` records). */
  events: readonly WireEvent[];
};

type Grant = Extract<FailoverStep, { kind: 'grant' }>;
type Write = Extract<FailoverStep, { kind: 'write' }>;

const served = (server: string) => (server === 'primary' ? 'the primary' : 'the promoted standby');
const writeWords = (w: Write) =>
  w.accepted
    ? `"${w.value}" with token ${w.token}: ${served(w.server)} accepted it`
    : `"${w.value}" with token ${w.token}: ${served(w.server)} rejected it as stale, its row holding token ${w.rowToken}`;

export function failoverWalkthrough(mode: 'async' | 'sync'): FailoverWalkthroughStep[] {
  const sync = mode === 'sync';
  // Each step's record, by the walkthrough's index; `need` ends the words when one is missing.
  const at = <K extends FailoverStep['kind']>(story: FailoverStory, index: number, ...kinds: K[]) => {
    const step = story.done[index];
    if (!step || !kinds.includes(step.kind as K)) throw new NotRecordedYet();
    return step as Extract<FailoverStep, { kind: K }>;
  };
  const grantOf = (story: FailoverStory, holder: string): Grant =>
    need(story.history.find((s): s is Grant => s.kind === 'grant' && s.holder === holder));
  const acceptedOf = (story: FailoverStory, holder: string): Write | undefined =>
    story.history.find((s): s is Write => s.kind === 'write' && s.holder === holder && s.accepted);
  /** Whether replication was cut when walkthrough step `index` happened (free play may cut or heal at any time). */
  const cutWhen = (story: FailoverStory, index: number) => {
    const last = story.history
      .slice(0, story.at[index] ?? 0)
      .findLast((s) => s.kind === 'replication_cut' || s.kind === 'replication_healed');
    return last?.kind === 'replication_cut';
  };
  // The walkthrough's indexes: the synchronous story has one more step (the heal) after B's grant.
  const I = { start: 0, grantA: 1, writeA: 2, cut: 3, grantB: 4, heal: 5, writeB: sync ? 6 : 5 } as const;
  const after = I.writeB + 1;
  const J = { kill: after, promote: after + 1, lateA: after + 2, grantC: after + 3 } as const;

  const steps: FailoverWalkthroughStep[] = [
    {
      id: 'start',
      title: `Start a primary and a standby (${sync ? 'synchronous' : 'asynchronous'} replication)`,
      preview: `Two real PostgreSQL servers start, the standby streaming from the primary (${sync ? 'synchronously' : 'asynchronously'}), through a proxy the lab can cut.`,
      narrate: (story) => {
        at(story, I.start, 'pair_started');
        return sync
          ? 'Two real PostgreSQL servers started. The primary names the standby in synchronous_standby_names: a COMMIT is acknowledged only once the standby has flushed it. The lease table, the token sequence and the protected row live on the primary; replication runs through a proxy the lab can cut.'
          : 'Two real PostgreSQL servers started, the standby streaming from the primary asynchronously (PostgreSQL’s default): a COMMIT is acknowledged as soon as the primary has it. The lease table, the token sequence and the protected row live on the primary; replication runs through a proxy the lab can cut.';
      },
      action: { kind: 'start', mode },
    },
    {
      id: 'a-takes-the-lease',
      title: 'A takes the lease',
      preview:
        'A asks the primary for the lease; its token comes from the sequence, in the same committed transaction.',
      narrate: (story) => {
        const grant = at(story, I.grantA, 'grant');
        return `A was granted the lease with token ${grant.token} by ${served(grant.server)}: the token came from the sequence, in the same committed transaction as the grant.`;
      },
      action: { kind: 'grant', holder: 'A' },
    },
    {
      id: 'a-writes',
      title: 'A writes',
      preview: 'A writes the protected row with its token, through the guard.',
      narrate: (story) => {
        const w = at(story, I.writeA, 'write');
        return `A wrote ${writeWords(w)}.${cutWhen(story, I.writeA) ? ' Replication was cut: the standby did not receive it.' : ' Replication was running: the standby streams what the primary commits.'}`;
      },
      action: { kind: 'write', holder: 'A' },
    },
    {
      id: 'replication-cut',
      title: 'Replication is cut',
      preview: 'The proxy between the primary and the standby drops the connection and refuses new ones.',
      narrate: (story) => {
        const cut = at(story, I.cut, 'replication_cut');
        const seq = cut.sequence
          ? ` At the cut the primary had handed out tokens up to ${cut.sequence.primaryLastValue}.`
          : '';
        return `The proxy between the primary and the standby dropped the connection and refuses new ones. Nothing else changed: clients still reach the primary.${seq}`;
      },
      action: { kind: 'cut' },
    },
    {
      id: 'b-takes-over',
      title: 'A’s lease runs out; B takes it over',
      preview: sync
        ? 'B asks for the lease; its grant commits on the primary, whose COMMIT waits for the standby.'
        : 'B asks the primary for the lease, which grants it a newer token.',
      narrate: (story) => {
        const step = at(story, I.grantB, 'grant', 'grant_waiting');
        if (step.kind === 'grant_waiting')
          return `B’s grant committed on the primary, but its COMMIT was not acknowledged: after ${step.waitedMs} ms it still waited for the standby, which cannot hear the primary. B was told nothing yet.`;
        // Newer, older or the same as A's, from the numbers; and by whichever server granted it (free play may
        // have killed the primary by then).
        const a = at(story, I.grantA, 'grant');
        const [mine, theirs] = [Number(step.token), Number(a.token)];
        const relation = mine > theirs ? 'newer than' : mine < theirs ? 'older than' : 'the same as';
        const by = step.server === 'primary' ? 'The primary' : 'The promoted standby';
        const cutOff = step.server === 'primary' && cutWhen(story, I.grantB);
        return `${by} granted B token ${step.token}, ${relation} A’s ${a.token}, and acknowledged it at once.${cutOff ? ' The standby, cut off, did not receive it.' : ''}`;
      },
      action: { kind: 'grant', holder: 'B' },
    },
    ...(sync
      ? [
          {
            id: 'replication-heals' as const,
            title: 'Replication heals; B’s grant goes through',
            preview: 'The proxy lets the standby reach the primary again.',
            narrate: (story: FailoverStory) => {
              at(story, I.heal, 'replication_healed');
              const b = grantOf(story, 'B');
              return `Replication healed. Once the standby had the grant, the primary acknowledged it: B holds token ${b.token}, and so does the standby.`;
            },
            action: { kind: 'heal' } as const,
          },
        ]
      : []),
    {
      id: 'b-writes',
      title: 'B writes',
      preview: 'B writes the protected row with its newer token.',
      narrate: (story) => {
        const w = at(story, I.writeB, 'write');
        if (sync) return `B wrote ${writeWords(w)}, acknowledged once the standby had it.`;
        return `B wrote ${writeWords(w)}, acknowledged at once.${cutWhen(story, I.writeB) ? ' The standby, cut off, has neither B’s grant nor its write.' : ''}`;
      },
      action: { kind: 'write', holder: 'B' },
    },
    {
      id: 'primary-dies',
      title: 'The primary dies',
      preview: 'The primary’s postmaster is killed (SIGKILL), as a machine would die.',
      narrate: (story) => {
        const killed = at(story, J.kill, 'primary_killed');
        const seq = killed.sequence
          ? ` It had handed out tokens up to ${killed.sequence.primaryLastValue}; the standby’s copy of the sequence covers up to ${killed.sequence.standbyCeiling}.`
          : '';
        return `The primary’s postmaster was killed (SIGKILL), as a machine would die.${seq}`;
      },
      action: { kind: 'kill' },
    },
    {
      id: 'standby-promoted',
      title: 'The standby is promoted',
      preview: 'The standby is promoted: what it holds is all the lab has now.',
      narrate: (story) => {
        const promoted = at(story, J.promote, 'standby_promoted');
        const lease = promoted.lease ? `${promoted.lease.holder}’s (token ${promoted.lease.token})` : 'free';
        const holds = `The promoted standby’s row holds "${promoted.row.value}" with token ${promoted.row.lastToken}; its lease is ${lease}.`;
        const b = acceptedOf(story, 'B');
        if (!b) return holds;
        if (b.value === promoted.row.value) return `${holds} B’s acknowledged write is there.`;
        const grantGone = promoted.lease?.holder !== 'B' ? ', and so is its grant' : '';
        return `${holds} B’s acknowledged write ("${b.value}", token ${b.token}) is gone${grantGone}: the standby never received it.`;
      },
      action: { kind: 'promote' },
    },
    {
      id: 'a-writes-late',
      title: 'A, late, writes with its old token',
      preview: 'A, which still believes it holds the lease, sends a write with its old token to the promoted standby.',
      narrate: (story) => {
        const w = at(story, J.lateA, 'write');
        const sent = `A, late, wrote ${writeWords(w)}.`;
        if (!w.accepted) return `${sent} The row’s token was newer than A’s.`;
        const promoted = at(story, J.promote, 'standby_promoted');
        const held =
          promoted.row.lastToken === w.token ? 'A’s own token' : `token ${promoted.row.lastToken}, not newer than A’s`;
        return `${sent} The promoted standby’s row held ${held}, so the guard (last_token <= token) let it through: fencing cannot refuse what the database forgot.`;
      },
      action: { kind: 'write', holder: 'A' },
    },
    {
      id: 'c-takes-the-lease',
      title: 'C takes the lease',
      preview: 'C asks the promoted standby for the lease.',
      narrate: (story) => {
        const c = at(story, J.grantC, 'grant');
        const earlier = story.history.find(
          (s): s is Grant => s.kind === 'grant' && s.holder !== 'C' && s.token === c.token,
        );
        const granted = `C was granted the lease with token ${c.token} by ${served(c.server)}.`;
        if (earlier)
          return `${granted} ${earlier.holder === OTHER_HOLDERS ? 'Another client' : earlier.holder} had been granted token ${c.token} by the old primary: one token granted twice. The standby’s sequence goes on above the last sequence record it received, and PostgreSQL logs the sequence 32 values ahead; the old primary had crossed a new 32-value boundary after the cut.`;
        return `${granted} No one was granted it before: the standby’s sequence goes on above the last sequence record it received, and PostgreSQL logs the sequence 32 values ahead, so a token comes back only when the old primary crossed a new 32-value boundary after the cut${sync ? ', which synchronous replication never lets happen' : ''}.`;
      },
      action: { kind: 'grant', holder: 'C' },
    },
    {
      id: 'the-verdict',
      title: 'The verdict',
      preview: 'What the checker found in this story.',
      narrate: (story) => {
        at(story, J.grantC, 'grant');
        // The one checker's verdict on the story's events (the banner's and the report's), as of C's grant.
        const verdict = checkHistory(story.events);
        const line = `The checker’s verdict: ${verdictLine(verdict)}.`;
        if (verdict.ok) {
          const late = at(story, J.lateA, 'write');
          return `${line} The promoted standby had every acknowledged write and grant, no token was granted twice, and A’s late write ${late.accepted ? 'was accepted' : 'was rejected'}: ${sync ? 'with synchronous replication a commit is acknowledged only once the standby has it, so the token sequence survived the failover' : 'this run lost nothing in its failover'}.`;
        }
        const found = verdict.violations.flatMap((v) => v.findings.map((f) => f.message));
        const failover = verdict.violations.some((v) =>
          v.kinds.some((k) => k === 'acknowledged-write-lost' || k === 'token-granted-twice'),
        );
        const lesson = failover
          ? ' Fencing cannot refuse what the database forgot: the primary acknowledged what the standby never had.'
          : '';
        return `${line} ${found.map((m) => `${m.charAt(0).toUpperCase()}${m.slice(1)}.`).join(' ')}${lesson}`;
      },
    },
  ];
  return steps;
}

/**
 * The events of this mode's story: the lab's, unless its story was told in the other mode (then
 * none: this walkthrough starts anew).
 */
export function failoverRun(events: readonly WireEvent[], mode: 'async' | 'sync'): readonly WireEvent[] {
  const started = events.find((e) => e.kind === 'pair_started');
  const told = started ? (started.detail.mode === 'sync' ? 'sync' : 'async') : undefined;
  return told === undefined || told === mode ? events : [];
}

/** The steps' records, by walkthrough index, as far as the events have done them in order. */
export function failoverStory(walkthrough: FailoverWalkthroughStep[], events: readonly WireEvent[]): FailoverStory {
  const recorded = events.flatMap((event) => {
    const step = failoverStepOf(event);
    return step ? [{ step, event }] : [];
  });
  const history = recorded.map((r) => r.step);
  const told = recorded.map((r) => r.event);
  const done: (FailoverStep | undefined)[] = [];
  const at: number[] = [];
  if (history.at(-1)?.kind === 'pair_stopped') return { done, at, history, events: told };
  let from = 0;
  for (const step of walkthrough) {
    if (!step.action) break;
    const action = step.action;
    const found = history.findIndex((entry, index) => index >= from && produces(action, entry));
    if (found < 0) break;
    // The heal's step is over once B's grant, which waited on the standby, is recorded too (before or after the heal).
    const grantB =
      action.kind === 'heal'
        ? history.findIndex(
            (entry, index) => index > (at.at(-1) ?? 0) && entry.kind === 'grant' && entry.holder === 'B',
          )
        : found;
    if (grantB < 0) break;
    const end = Math.max(found, grantB);
    done.push(history[found]);
    at.push(end);
    from = end + 1;
  }
  return { done, at, history, events: told };
}

/** How many action steps the walkthrough has (the verdict, after them, does nothing to the lab). */
const actionsOf = (walkthrough: readonly FailoverWalkthroughStep[]) => walkthrough.filter((s) => s.action).length;

/**
 * The last step (from 0) that `events` reach: the verdict is reached with the last action. For a
 * step's moment (lib/model/timeline/timeline-frame.ts stepMoments), as the worker labs' stepReachedBy.
 */
export function failoverReached(walkthrough: FailoverWalkthroughStep[], events: readonly WireEvent[]): number {
  const done = failoverStory(walkthrough, events).done.length;
  if (done === 0) return 0;
  return done === actionsOf(walkthrough) ? done : done - 1;
}

/**
 * A step's words: its narration once the lab has done it (the verdict once every action has run),
 * told from the events up to the one that completed it; else what it will do.
 */
export function failoverStepWords(
  walkthrough: FailoverWalkthroughStep[],
  events: readonly WireEvent[],
  index: number,
): { done: boolean; text: string } {
  const step = walkthrough[index];
  if (!step) return { done: false, text: '' };
  const story = failoverStory(walkthrough, events);
  const done = step.action ? index < story.done.length : story.done.length === index;
  if (!done) return { done, text: step.preview };
  // As of the step's moment: the event that completed it (the verdict: the last action's).
  const upTo = story.events[story.at[step.action ? index : index - 1] ?? -1];
  const then = upTo
    ? failoverStory(
        walkthrough,
        events.filter((e) => e.id <= upTo.id),
      )
    : story;
  try {
    return { done, text: step.narrate(then) };
  } catch (error) {
    if (error instanceof NotRecordedYet) return { done: false, text: step.preview };
    throw error;
  }
}

/** Whether a recorded step is what a walkthrough action produces. */
function produces(action: FailoverAction, step: FailoverStep): boolean {
  switch (action.kind) {
    case 'start':
      return step.kind === 'pair_started' && step.mode === action.mode;
    case 'grant':
      return (step.kind === 'grant' || step.kind === 'grant_waiting') && step.holder === action.holder;
    case 'write':
      return step.kind === 'write' && step.holder === action.holder;
    case 'cut':
      return step.kind === 'replication_cut';
    case 'heal':
      return step.kind === 'replication_healed';
    case 'kill':
      return step.kind === 'primary_killed';
    case 'promote':
      return step.kind === 'standby_promoted';
  }
}

/**
 * How many of the walkthrough's steps the events have done, in order (0: none). The lab's other
 * events (a grant recorded after its wait, the pair stopped) are passed over; a stopped pair's story
 * is over (its history stays to be read): the walkthrough starts again.
 */
export function failoverProgress(walkthrough: FailoverWalkthroughStep[], events: readonly WireEvent[]): number {
  return failoverStory(walkthrough, events).done.length;
}
