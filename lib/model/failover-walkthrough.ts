import type { FailoverHolder } from './failover-inputs';
import type { FailoverStep } from './failover-steps';

/*
 * The failover lab's narrated walkthrough, for asynchronous and synchronous replication, and where
 * a lab's history stands in it. Pure.
 */

export type FailoverAction =
  | { kind: 'start'; mode: 'async' | 'sync' }
  | { kind: 'grant'; holder: FailoverHolder }
  | { kind: 'write'; holder: FailoverHolder }
  | { kind: 'cut' }
  | { kind: 'heal' }
  | { kind: 'kill' }
  | { kind: 'promote' };

export type FailoverWalkthroughStep = { title: string; narration: string; action?: FailoverAction };

export function failoverWalkthrough(mode: 'async' | 'sync'): FailoverWalkthroughStep[] {
  const sync = mode === 'sync';
  const steps: FailoverWalkthroughStep[] = [
    {
      title: `Start a primary and a standby (${sync ? 'synchronous' : 'asynchronous'} replication)`,
      narration: sync
        ? 'Two real PostgreSQL servers. The primary names the standby in synchronous_standby_names: a COMMIT is acknowledged only once the standby has flushed it. The lease table, the token sequence and the protected row live on the primary; replication runs through a proxy the lab can cut.'
        : 'Two real PostgreSQL servers, the standby streaming from the primary asynchronously (PostgreSQL’s default): a COMMIT is acknowledged as soon as the primary has it. The lease table, the token sequence and the protected row live on the primary; replication runs through a proxy the lab can cut.',
      action: { kind: 'start', mode },
    },
    {
      title: 'A takes the lease',
      narration: 'A is granted the lease with a token from the sequence, in the same committed transaction.',
      action: { kind: 'grant', holder: 'A' },
    },
    {
      title: 'A writes',
      narration: 'A writes the protected row with its token; the guard accepts it. The standby receives it too.',
      action: { kind: 'write', holder: 'A' },
    },
    {
      title: 'Replication is cut',
      narration:
        'The proxy between the primary and the standby drops the connection and refuses new ones. Nothing else changes: clients still reach the primary.',
      action: { kind: 'cut' },
    },
    {
      title: 'A’s lease runs out; B takes it over',
      narration: sync
        ? 'B’s grant commits on the primary, but its COMMIT is not acknowledged: it waits for the standby, which cannot hear the primary. B is told nothing yet.'
        : 'The primary grants B a newer token and acknowledges it at once. The standby never hears of it.',
      action: { kind: 'grant', holder: 'B' },
    },
    ...(sync
      ? [
          {
            title: 'Replication heals; B’s grant goes through',
            narration:
              'Once the standby has the grant, the primary acknowledges it: B holds the newer token, and so does the standby.',
            action: { kind: 'heal' } as const,
          },
        ]
      : []),
    {
      title: 'B writes',
      narration: sync
        ? 'B writes with its newer token; acknowledged once the standby has it.'
        : 'B writes with its newer token; the primary acknowledges it. The standby has neither B’s grant nor its write.',
      action: { kind: 'write', holder: 'B' },
    },
    {
      title: 'The primary dies',
      narration: 'The primary’s postmaster is killed (SIGKILL), as a machine would die.',
      action: { kind: 'kill' },
    },
    {
      title: 'The standby is promoted',
      narration: sync
        ? 'The promoted standby has everything acknowledged: B’s lease, B’s write, and the sequence past B’s token.'
        : 'The promoted standby has what it received before the cut: the row is back at A’s value and token, the lease is A’s again. B’s acknowledged grant and write are gone.',
      action: { kind: 'promote' },
    },
    {
      title: 'A, late, writes with its old token',
      narration: sync
        ? 'The promoted standby’s row holds B’s newer token: A’s write is rejected.'
        : 'The promoted standby’s row holds A’s own token, so the guard (last_token <= token) accepts A’s stale write. Fencing cannot refuse what the database forgot.',
      action: { kind: 'write', holder: 'A' },
    },
    {
      title: 'C takes the lease',
      narration:
        'The promoted standby hands out tokens above the last sequence record it received. PostgreSQL logs the sequence 32 values ahead, so a token comes back only when the old primary crossed a new 32-value boundary after the cut; under synchronous replication it never can.',
      action: { kind: 'grant', holder: 'C' },
    },
    {
      title: 'The verdict',
      narration: sync
        ? 'Nothing acknowledged was lost, and A was rejected: a durable token sequence needs its commits on the standby before they are acknowledged.'
        : 'The checker names what went wrong: the acknowledged write (and grant) lost, the stale write accepted, and a token granted twice when enough grants followed the cut.',
    },
  ];
  return steps;
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
 * How many of the walkthrough's steps the history has done, in order (0: none). The history's other
 * steps (a grant recorded after its wait, the pair stopped) are passed over.
 */
export function failoverProgress(walkthrough: FailoverWalkthroughStep[], history: FailoverStep[]): number {
  // A stopped pair's story is over (its history stays to be read): the walkthrough starts again.
  if (history.at(-1)?.kind === 'pair_stopped') return 0;
  let done = 0;
  let at = 0;
  for (const step of walkthrough) {
    if (!step.action) break;
    const action = step.action;
    const found = history.findIndex((entry, index) => index >= at && produces(action, entry));
    if (found < 0) break;
    done++;
    at = found + 1;
  }
  return done;
}
