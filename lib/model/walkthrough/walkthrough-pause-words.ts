import type { FencingPolicy, TokenSource } from '../../labs/define';
import { LABS, type LabId } from '../../labs/index';
import type { WireEvent } from '../core/wire';
import { t } from './narration';
import type { Facts } from './walkthrough-types';

/*
 * What each lab of the pause story does differently, in words a trainer would say: where its tokens
 * come from and what its write checks (said before any step names a token), why a late write got
 * through, and what the end of the story teaches. Pure.
 */

export type PauseWords = {
  /** Where the grants' tokens come from, as in "B took the lease with a newer token, 11, from …". */
  source: string;
  /** Introduces the lease's token and the lab's write, before any step names them. */
  setup: string;
  /** Why A's late write was accepted: `before` is the accepted write the row held when it arrived. */
  lateAccepted: (late: WireEvent, before: WireEvent | undefined) => string;
  /** What the row at the end of the story teaches. */
  lesson: string;
  /**
   * Whether this run showed what the lesson says (the late write refused in a fenced lab, accepted over
   * B's value in a broken one): the lesson is said only then, and an honest sentence otherwise.
   */
  shows: (facts: Facts, before: WireEvent | undefined) => boolean;
};

/** The fenced lab's run shows fencing when A's late write was refused. */
const refused = (f: Facts) => f.lateWriteA?.kind === 'write_rejected';
/** A broken lab's run shows its mistake when A's late write was accepted over B's value. */
const overB = (f: Facts, before: WireEvent | undefined) =>
  f.lateWriteA?.kind === 'write_accepted' && before?.actor === 'B';

const SEQUENCE = 'the database sequence write_epoch';
const FENCED_WRITE =
  'every write presents its token, and one statement, UPDATE … WHERE last_token <= token, writes the row only if no newer token has written it; a write with an older token than the row’s last_token is refused as stale';
const noCheck = () => 'The UPDATE checks no token.';
const sameNumber = (late: WireEvent, before: WireEvent | undefined) => {
  const [row, mine] = [t(before?.token), t(late.token)];
  return row === mine
    ? `The row's last_token was ${row}, and ${row} <= ${mine}: the check cannot tell the stale holder from the new one when both present the same number.`
    : `The row's last_token was ${row}, and ${row} <= ${mine}: the number A's write presented was not older than the one the row held.`;
};

/*
 * A pause-story lab's words follow its mistake: where its tokens come from when that is what is
 * wrong, otherwise what its write checks.
 */
const WORDS: Partial<Record<FencingPolicy | TokenSource, PauseWords>> = {
  'fenced-write': {
    source: SEQUENCE,
    setup: `Every grant of the lease carries a token, a number from ${SEQUENCE} that only goes up; ${FENCED_WRITE}.`,
    lateAccepted: noCheck,
    lesson: 'That is fencing: the storage itself refused the stale token, in the same statement as the write.',
    shows: refused,
  },
  none: {
    source: SEQUENCE,
    setup: `Every grant of the lease carries a token from ${SEQUENCE}, but the write is a plain UPDATE that never looks at it: only the lease stands between two writers.`,
    lateAccepted: noCheck,
    lesson:
      'A lease alone cannot stop a holder that froze: only a token the row checks can. In the fenced lab the same pause ends with B’s value intact.',
    shows: overB,
  },
  'app-check': {
    source: SEQUENCE,
    setup: `Every grant of the lease carries a token from ${SEQUENCE}. Before each write, the worker reads the row's token (SELECT last_token) and compares it with its own in its own code; then it sends an UPDATE that checks nothing.`,
    lateAccepted: () =>
      'A had read and checked the row’s token before it froze; the UPDATE it sent after waking checks nothing.',
    lesson:
      'A check in the application is only as fresh as its read: A checked, froze, and wrote. The check has to be part of the write itself, as in the fenced lab.',
    shows: overB,
  },
  'text-compare': {
    source: 'the lab’s own counter (the column labs.text_epoch, set back to 8 at every reset)',
    setup:
      'Every grant of the lease carries a token from the lab’s own counter, the column labs.text_epoch, which the reset sets back to 8 and each grant moves up by one in its own transaction; every write presents it, but the write compares it with the row’s last_token as text, not as a number, and refuses a write whose token sorts before the row’s. As text, "10" sorts before "9".',
    lateAccepted: (late, before) =>
      `Compared as text, "${t(late.token)}" does not sort before the row's "${t(before?.token)}".`,
    lesson:
      'Tokens are numbers: compared as text, every token from 10 up sorts before "9", so the rightful holder was refused and the stale holder kept the row. Compared as integers, as in the fenced lab, B’s token wins.',
    // The lesson's words: B was refused (its write, with the newer token), and A's late write was accepted.
    shows: (f) => f.writeB?.kind === 'write_rejected' && f.lateWriteA?.kind === 'write_accepted',
  },
  'worker-counter': {
    source: SEQUENCE,
    setup: `The lease table grants the lease with a token from ${SEQUENCE}, but each worker numbers every grant it gets with a counter in its own memory, which starts at 1 in every new process, and its writes present that number as their token. The write itself is fenced: UPDATE … WHERE last_token <= token.`,
    lateAccepted: sameNumber,
    lesson:
      'A token must come from one place every holder shares, in the same transaction that grants the lease. A counter in each process starts again at 1, so the stale holder’s number was not older than the new one’s, and the check let the stale write through.',
    shows: overB,
  },
  'catch-up-bypass': {
    source: SEQUENCE,
    setup: `Every grant of the lease carries a token from ${SEQUENCE}, and a regular write presents it to a fenced UPDATE … WHERE last_token <= token. But a write that runs late by more than one write interval takes a catch-up path: a plain UPDATE that skips the token check.`,
    lateAccepted: (late) =>
      String(late.detail.path ?? '').includes('catch-up')
        ? 'Its write was overdue after the freeze, so it took the catch-up path, which skips the token check.'
        : 'It went through the regular, fenced path.',
    lesson:
      'Every path that writes the row must carry the guard: a fenced regular path is worth nothing if another path to the same row skips it. In the fenced lab there is one path, and the late write is refused.',
    shows: overB,
  },
  'kept-on-takeover': {
    source: SEQUENCE,
    setup: `A fresh grant of the lease carries a new token from ${SEQUENCE}, but when a holder takes over a lease that ran out under another, the lease service hands it the old holder's token. Every write presents its token to a fenced UPDATE … WHERE last_token <= token.`,
    lateAccepted: sameNumber,
    lesson:
      'A takeover is a grant like any other, and every grant must mint a new token, in the same committed transaction that records it. Then B would have held a newer token than A’s, and A’s late write would have been refused, as in the fenced lab.',
    shows: overB,
  },
};

/** The words of a lab of the pause story (a lab without its own: its summary, and the fenced lab's lesson). */
export function pauseWords(lab: LabId, summary: string): PauseWords {
  const { story, tokenSource, fencing } = LABS[lab].traits;
  const mistake = story !== 'pause' ? undefined : tokenSource === 'sequence' ? fencing : tokenSource;
  return (
    (mistake && WORDS[mistake]) ?? {
      source: SEQUENCE,
      setup: summary,
      lateAccepted: () => '',
      lesson: 'In the fenced lab the same pause ends with B’s value intact.',
      shows: overB,
    }
  );
}
