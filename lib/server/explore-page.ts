import 'server-only';
import { exploreOnDatabase, walkOnDatabase } from '../../db/explore';
import { findLab } from '../../db/labs';
import { toFencingError } from '../../db/pool';
import { runsOnFailoverPair } from '../labs/traits';
import { FencingError, isFencingError } from '../model/core/errors';
import type { WireEvent } from '../model/core/wire';
import { boundsOf, type ExploreAddress, explorableAt, parseExploreAddress } from '../model/explore/explore-inputs';
import type { ExploreLab } from '../model/explore/explore-labs';
import { CLOCK_START_MS, type ExploreCounts, stepIndexes } from '../model/explore/search';
import { stepWords } from '../model/explore/story-words';
import { verdictSentence } from '../model/explore/verdict';
import { EXPLORED_TITLE, REPLICATION_TITLES, withPairStarted } from '../model/failover/failover-servers-at';
import { type HistoryFile, toHistoryFile } from '../model/history/history-file';
import { type LabSummary, summaryOf, summaryTitle } from '../model/lab/lab-instance';
import { type Credentials, canView } from './access';

/*
 * The Explore page's server side: the lab's verdict at the asked bounds (every interleaving, on the
 * database, rolled back: db/explore.ts), and the state at the asked path (walked on the database too).
 * A verdict is the same every time for a lab and its bounds, so each is explored once per server
 * process and kept; the path is walked on every request (a few statements). Explorations run one at a
 * time in a process, so that a page reloaded in a loop costs one exploration (its three sessions) at most.
 */

export type ExploreView = {
  verdict: string;
  holds: boolean;
  counts: ExploreCounts;
  seconds: number;
  /** The shortest counterexample as a path (indexes into each state's enabled steps). */
  shortestPath?: number[];
  /** The steps taken on the asked path, in words, and the path that leads to each. */
  taken: { words: string; path: number[] }[];
  /** The steps enabled now, in words, and the path that takes each. */
  next: { words: string; path: number[] }[];
  /** The row now: its value and token. */
  row: { value: string; token: number };
  /** The failover lab: the server whose row that is, and the standby's row until it is promoted. */
  pair?: { serving: 'the primary' | 'the promoted standby'; standby?: { value: string; token: number } };
  /** The checker's words, if this path broke. */
  violation?: string;
  /** The path's events (the scratch lab's id), for its history as a run. */
  events: WireEvent[];
};

type Verdict = Pick<ExploreView, 'verdict' | 'holds' | 'counts' | 'seconds' | 'shortestPath'>;

/** Each lab's verdict at each bounds, explored once: the page's requests at once share one exploration. */
const verdicts = new Map<string, Promise<Verdict>>();
let queue: Promise<unknown> = Promise.resolve();

/** Explorations and walks waiting their turn in this process, at most: a page's requests are cheap, each walk is not. */
export const EXPLORE_QUEUE_MAX = 16;
let waiting = 0;

/**
 * Runs `work` after every exploration this process started before it. Past EXPLORE_QUEUE_MAX waiting,
 * refuses at once (rate_limited: 429, in words) rather than queue without end.
 */
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  if (waiting >= EXPLORE_QUEUE_MAX) {
    return Promise.reject(
      new FencingError('rate_limited', `the explorer has ${waiting} explorations waiting: try again in a few seconds`),
    );
  }
  waiting += 1;
  const done = () => {
    waiting -= 1;
  };
  // Counted out before its caller hears of it: a caller who asks again at once finds its place free.
  const run = queue.then(work, work).finally(done);
  // The queue only orders the next one: this one's failure is its caller's, through `run`.
  queue = run.catch(() => undefined);
  return run;
}

export async function exploreView(lab: ExploreLab, address: ExploreAddress): Promise<ExploreView> {
  const bounds = boundsOf(address);
  const replication = lab.write.table === 'fo_rows' ? `:${lab.write.replication}` : '';
  const key = `${lab.kind}:${bounds.holders}x${bounds.writes}${bounds.renew ? ':renew' : ''}${replication}`;
  let exploring = verdicts.get(key);
  if (!exploring) {
    exploring = oneAtATime(async () => {
      const { result, seconds } = await exploreOnDatabase({ lab, bounds });
      // The counterexample's steps as a path: enabled steps depend on no write's outcome nor token.
      const start = {
        rule: { tokens: [1, 2, 3], writeWith: 'lease-token' as const },
        row: { value: '', token: 0 },
        // The failover lab's pair steps are enabled by its pair's state (failover-story.ts).
        ...(lab.write.table === 'fo_rows' ? { failover: { replication: lab.write.replication } } : {}),
      };
      return {
        verdict: verdictSentence(lab.title, result, seconds).replace(
          /; the shortest has (\d+ steps?): .*$/,
          '; the shortest has $1.',
        ),
        holds: result.counts.broken === 0,
        counts: result.counts,
        seconds,
        ...(result.shortest ? { shortestPath: stepIndexes(bounds, start, result.shortest.steps) } : {}),
      };
    });
    verdicts.set(key, exploring);
    // A failed exploration is not kept: the next request tries again.
    exploring.catch(() => verdicts.delete(key));
  }
  const verdict = await exploring;
  const walked = await oneAtATime(() => walkOnDatabase({ lab, bounds, path: address.path }));
  const path = address.path.slice(0, walked.taken.length);
  return {
    ...verdict,
    taken: walked.taken.map((t, i) => ({ words: t.words, path: path.slice(0, i + 1) })),
    next: walked.next.map((step, i) => ({ words: stepWords(walked.state, step), path: [...path, i] })),
    row: walked.state.row,
    ...(walked.state.failover
      ? {
          pair: walked.state.failover.promoted
            ? { serving: 'the promoted standby' as const }
            : { serving: 'the primary' as const, standby: walked.state.failover.standby.row },
        }
      : {}),
    ...(walked.violation ? { violation: walked.violation.message } : {}),
    events: walked.events,
  };
}

/**
 * A walked path's events as the lab's history file: the lab's id on each, a title that says what was
 * explored. A failover path's pair was started before its first step: the file records it first, as
 * the live lab does (`pair_started` with its replication), at the path's first moment.
 */
export function historyOfPath(
  lab: LabSummary,
  address: ExploreAddress,
  walked: { events: readonly WireEvent[]; steps: number },
): { file: HistoryFile; fileName: string } {
  const steps = `${walked.steps} ${walked.steps === 1 ? 'step' : 'steps'}`;
  const ofLab = walked.events.map((event) => ({ ...event, lab: lab.id }));
  const events = runsOnFailoverPair(lab.kind)
    ? withPairStarted(ofLab, address.sync ? 'sync' : 'async', { lab: lab.id, at: CLOCK_START_MS })
    : ofLab;
  const file = toHistoryFile({
    lab: {
      id: lab.id,
      kind: lab.kind,
      title: `${summaryTitle(lab)}: ${EXPLORED_TITLE} ${address.holders} holders × ${address.writes} writes${address.renew ? ' (careful holders)' : ''}${runsOnFailoverPair(lab.kind) ? ` ${REPLICATION_TITLES[address.sync ? 'sync' : 'async']}` : ''}, ${steps}`,
    },
    events,
    exportedAt: new Date(),
  });
  const path = address.path.slice(0, walked.steps);
  const where = path.length > 0 ? path.join('.') : 'start';
  const careful = `${address.renew ? '-renew' : ''}${address.sync ? '-sync' : ''}`;
  return {
    file,
    fileName: `fencing-lab-explore-${lab.id}-${address.holders}x${address.writes}${careful}-${where}.json`,
  };
}

/**
 * The path at `address` as a lab's history file (issue 35): the events its steps recorded, walked on
 * the database as the page walks it, for /replay and compare to open like any run's. The events carry
 * the lab's id, a made-up clock a step every 100 ms, and the title says what was explored.
 */
export async function exploredPathHistory(
  lab: LabSummary,
  explorable: ExploreLab,
  address: ExploreAddress,
): Promise<{ file: HistoryFile; fileName: string }> {
  const bounds = boundsOf(address);
  const walked = await oneAtATime(() => walkOnDatabase({ lab: explorable, bounds, path: address.path }));
  return historyOfPath(lab, address, { events: walked.events, steps: walked.taken.length });
}

export type ExploredFile =
  | { ok: true; file: HistoryFile; fileName: string }
  /** `not_found`: no lab this caller may see; `invalid_input`: a lab not explored, or a bad address. */
  | { ok: false; code: 'not_found' | 'invalid_input' | 'db_unavailable' | 'rate_limited'; message: string };

/** The explored path a request names (`lab`, and `holders`, `writes`, `path` as the Explore page has them) as a history file. */
export async function exploredFileFor(
  labId: string,
  params: Record<string, string | string[] | undefined>,
  credentials: Credentials,
): Promise<ExploredFile> {
  const record = await findLab(labId).catch((error: unknown) => {
    throw toFencingError(error);
  });
  // Someone else's private lab is answered exactly like a lab that does not exist.
  if (!record || !canView(record, credentials)) {
    return { ok: false, code: 'not_found', message: `no lab ${JSON.stringify(labId)}` };
  }
  const parsed = parseExploreAddress(params);
  if (!parsed.ok)
    return { ok: false, code: 'invalid_input', message: `this address cannot be explored: ${parsed.error}` };
  const explorable = explorableAt(record.kind, parsed.address);
  if ('refusal' in explorable) return { ok: false, code: 'invalid_input', message: explorable.refusal };
  try {
    return { ok: true, ...(await exploredPathHistory(summaryOf(record), explorable, parsed.address)) };
  } catch (error) {
    if (isFencingError(error, 'rate_limited')) return { ok: false, code: 'rate_limited', message: error.message };
    if (!isFencingError(error, 'db_unavailable')) throw error;
    return { ok: false, code: 'db_unavailable', message: 'the database cannot be reached: try again once it is back' };
  }
}
