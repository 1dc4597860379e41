import { LAB_IDS, LABS, type LabId } from '../../labs/index';
import type { Replication } from './failover-story';
import type { TokenRule } from './story';

/*
 * Which labs the explorer runs, and how: the write path each storage step executes and the rule its
 * lease service mints tokens by, both read from the lab's traits (lib/labs/). A lab the explorer
 * cannot run yet is told why, in words a person at the command line reads.
 */

/**
 * The SQL a storage step runs: the fenced write on protected_rows, or a broken lab's mode of
 * fl_broken_write; read-check-write's in two steps, as the lab splits it (a read of the row's token,
 * then the write: 'checked-stale' when its check failed, else 'plain').
 */
export type ExploreWritePath =
  | { table: 'protected_rows' }
  | { table: 'unguarded_rows'; mode: 'plain' | 'text' | 'fenced' | 'app-check' }
  /**
   * The delayed-packet labs' write as the relay delivers it (fl_delayed_packet_write, the lab's own rule):
   * a held packet is a write that others move before, which every interleaving already has.
   */
  | { table: 'unguarded_rows'; mode: 'packet' }
  /**
   * The bypass lab's two paths, as its worker picks one (lib/worker/write-paths.ts): the fenced write
   * while its lease runs, the catch-up path with no check ('plain') once it ran out (an overdue write).
   */
  | { table: 'unguarded_rows'; mode: 'catch-up-bypass' }
  /** The your-guard lab's own row, written through the trainee's statement (fl_your_guard_write): its attack's exhaustive part. */
  | { table: 'guarded_row' }
  /**
   * The failover lab's protected row on each server of its pair, written with the lab's own fenced
   * UPDATE (db/failover-cluster.ts writeFencedRow) on scratch copies of `fo_rows` (db/explore-failover.ts).
   */
  | { table: 'fo_rows'; replication: Replication };

/**
 * How the lab's tokens are made: from the sequence, from 9 (crossing a digit), written with each
 * holder's own count, or kept on a takeover (the same-token lab's lease service hands the old holder's
 * token to the next).
 */
export type ExploreTokenSource = 'sequence' | 'text-epoch' | 'holder-counter' | 'kept-on-takeover' | 'pair-sequence';

/**
 * ownGrantOnly: the lab's write takes only a token granted to its writer in the lab (its grants are
 * events): the explorer's grants stand in as events of the scratch lab (db/explore.ts).
 */
export type ExploreLab = {
  kind: LabId;
  title: string;
  write: ExploreWritePath;
  tokens: ExploreTokenSource;
  ownGrantOnly: boolean;
};

/** The token-as-text lab's first token: its counter starts at 8, so the second grant crosses a digit. */
export const TEXT_EPOCH_FIRST_TOKEN = 9;

export function exploreLabOf(kind: LabId): ExploreLab | { refusal: string } {
  const lab = LABS[kind];
  const t = lab.traits;
  const notYet = (why: string) => ({ refusal: `${lab.title} is not explored yet: ${why}` });
  if (t.runner === 'failover-pair') return failoverLab(kind, 'async');
  if (t.runner !== 'supervised-workers') return notYet('its holders are not workers of one row');
  const tokens: ExploreTokenSource =
    t.tokenSource === 'worker-counter'
      ? 'holder-counter'
      : t.tokenSource === 'kept-on-takeover'
        ? 'kept-on-takeover'
        : t.textEpoch
          ? 'text-epoch'
          : 'sequence';
  let write: ExploreWritePath;
  if (t.transport === 'packet-relay') write = { table: 'unguarded_rows', mode: 'packet' };
  else if (lab.table === 'protected_rows') write = { table: 'protected_rows' };
  else if (t.fencing === 'none') write = { table: 'unguarded_rows', mode: 'plain' };
  else if (t.fencing === 'text-compare') write = { table: 'unguarded_rows', mode: 'text' };
  else if (t.fencing === 'fenced-write') write = { table: 'unguarded_rows', mode: 'fenced' };
  else if (t.fencing === 'app-check') write = { table: 'unguarded_rows', mode: 'app-check' };
  else if (t.fencing === 'catch-up-bypass') write = { table: 'unguarded_rows', mode: 'catch-up-bypass' };
  else return notYet('its write takes another path');
  return { kind, title: lab.title, write, tokens, ownGrantOnly: t.ownGrantOnly };
}

/**
 * The failover lab with a mode of replication (asynchronous is its page's default): its tokens are
 * the pair's sequence's (lib/model/explore/failover-story.ts), its write the lab's fenced UPDATE.
 */
export function failoverLab(kind: LabId, replication: Replication): ExploreLab {
  const mode = replication === 'sync' ? 'synchronous' : 'asynchronous';
  return {
    kind,
    title: `${LABS[kind].title} (${mode} replication)`,
    write: { table: 'fo_rows', replication },
    tokens: 'pair-sequence',
    ownGrantOnly: false,
  };
}

/** The bounds a person may ask for (the command line's flags, the Explore page's choices), and their defaults. */
export const EXPLORE_BOUNDS = {
  holders: { min: 1, max: 3, default: 2 },
  writes: { min: 1, max: 3, default: 3 },
  depth: { min: 1, max: 40 },
} as const;

/** The labs the explorer runs today. */
export const EXPLORABLE_LABS: readonly LabId[] = LAB_IDS.filter((kind) => !('refusal' in exploreLabOf(kind)));

/** The token rule for a lab, given the tokens the storage reserved (one per holder: each acquires once). */
export function tokenRuleOf(lab: ExploreLab, reserved: readonly number[]): TokenRule {
  // The failover lab's pair mints its own (StoryStart.failover): no tokens are reserved for it.
  const tokens =
    lab.tokens === 'text-epoch'
      ? reserved.map((_, i) => TEXT_EPOCH_FIRST_TOKEN + i)
      : lab.tokens === 'pair-sequence'
        ? []
        : reserved;
  return {
    tokens,
    writeWith: lab.tokens === 'holder-counter' ? 'holder-counter' : 'lease-token',
    ...(lab.tokens === 'kept-on-takeover' ? { keptOnTakeover: true } : {}),
  };
}
