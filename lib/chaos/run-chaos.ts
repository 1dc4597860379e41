import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { listEvents } from '../../db/events';
import { readLabRow } from '../../db/lab-rows';
import { hasDriftingClock, isFencedKind } from '../labs/traits';
import { type ChaosAction, type ChaosTrack, planChaos, trackOf } from '../model/chaos/chaos-plan';
import { type ChaosCounts, tallyChaos } from '../model/chaos/chaos-tally';
import { checkHistory, type Verdict } from '../model/checker/checker';
import { toWire, type WireEvent } from '../model/core/wire';
import type { LabInstance } from '../model/lab/lab-instance';
import { hasPacketRelay } from '../model/lab/lab-kinds';
import { getSupervisor } from '../supervisor/supervisor';
import { ChaosActions } from './chaos-actions';

const WORKER_NAMES = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];
/**
 * Short leases, renewed at half their length, and a write every 100 ms: a holder whose lease was
 * taken from it sends several writes before its next renewal tells it so, each a stale attempt.
 */
export const CHAOS_WORKER = { leaseTtlMs: 700, renewEveryMs: 350, writeEveryMs: 100 } as const;
/**
 * The drifting-clock lab's chaos workers run 60 % slow: a renewal due every 500 ms by their clock
 * comes every 1.25 s, after the 1 s lease ran out by the database's, as in that lab's story.
 */
const CHAOS_CLOCK_SLOW_PERCENT = 60;
const PROGRESS_EVERY_MS = 5_000;
const CHAOS_TRACKS: ChaosTrack[] = ['holder', 'lease', 'workers', 'database'];
/**
 * A run that has not yet shown what it is for (`enough`) when its time is up goes on, a fresh plan at
 * a time (seeds of its own: roundSeed), at most this many more and each at most MORE_SECONDS long,
 * with no database crash (a crash and its recovery cost the very leases the run waits for): a loaded
 * machine makes fewer leases in the same seconds, and the run waits for the fact rather than failing
 * for want of it. A run that shows it in its time is exactly the plan its seed gives. For tests and
 * the soak only: a benchmark's rate, a guard attack's "the same attack for every trainee" and the
 * lab page's chaos (its end time shown) each need the planned seconds, and pass no `enough`.
 */
const MAX_MORE_ROUNDS = 3;
const MORE_SECONDS = 8;
/** A round more's seed: never the seed of a soak's next lab (seed + 1), the same for the same run. */
const roundSeed = (seed: number, round: number) => (round === 1 ? seed : seed * 16 + round - 1);

export type ChaosProgress = ChaosCounts;

export type ChaosReport = {
  lab: string;
  seed: number;
  workers: number;
  seconds: number;
  /** 1, or more when the run went on because `enough` did not hold yet (MAX_MORE_ROUNDS). */
  rounds: number;
  /** The seconds the rounds were planned for, in all. */
  plannedSeconds: number;
  planned: number;
  skipped: Array<{ action: ChaosAction; reason: string }>;
  totals: ChaosProgress;
  finalRow?: { value: string; lastToken: number };
  verdict: Verdict;
  /** The lab's whole history, as the checker read it. */
  events: WireEvent[];
};

export type ChaosRequest = {
  lab: LabInstance;
  seed: number;
  workers: number;
  seconds: number;
  /** Crashes the database (kill -9) and starts it again; only where this process owns the database. */
  crashDatabase?: () => Promise<void>;
  onProgress?: (progress: ChaosProgress) => void;
  onAction?: (action: ChaosAction, outcome: string) => void;
  /**
   * Whether the lab's history so far shows what the run is for (a stale write attempted, say, or the
   * violation a broken lab is named for): when it does not yet at the end of the planned time, the
   * run goes on (MAX_MORE_ROUNDS).
   */
  enough?: (events: readonly WireEvent[]) => boolean;
  /** A round more is starting: its number (2, 3, …) and its seconds. `onAction`'s times are the round's. */
  onMore?: (round: number, seconds: number) => void;
};

/**
 * A seeded chaos run with real workers, aimed at the critical window (lib/model/chaos/chaos-plan.ts):
 * freezes of the holder in its window past its lease, forced takeovers, held connections where the
 * lab has a packet relay, short freezes, crashes and restarts, optionally database crashes; then the
 * checker's verdict on everything the lab recorded, the row as it ended, and the counts
 * (lib/model/chaos/chaos-tally.ts: stale attempts above all).
 */
export async function runChaos(request: ChaosRequest): Promise<ChaosReport> {
  const { lab, seed, seconds } = request;
  const supervisor = getSupervisor();
  const names = WORKER_NAMES.slice(0, request.workers);
  const planFor = (round: number, roundSeconds: number) =>
    planChaos({
      seed: roundSeed(seed, round),
      workers: names,
      seconds: roundSeconds,
      leaseTtlMs: CHAOS_WORKER.leaseTtlMs,
      dbCrash: round === 1 && !!request.crashDatabase,
      heldConnections: hasPacketRelay(lab.kind),
    });
  const skipped: ChaosReport['skipped'] = [];
  const actions = new ChaosActions(lab, CHAOS_WORKER.leaseTtlMs, request.crashDatabase);
  // Only the unfenced drifting clock runs slow here: its mistake is the one the slow clock shows.
  const drift =
    hasDriftingClock(lab.kind) && !isFencedKind(lab.kind) ? { clockSlowPercent: CHAOS_CLOCK_SLOW_PERCENT } : {};
  await supervisor.resetLab(lab);
  try {
    // Side by side: each start waits for its process to join, most of it the process's own start-up.
    await Promise.all(names.map((name) => supervisor.startWorker(lab, { name, ...CHAOS_WORKER, ...drift })));
  } catch (error) {
    // Not all could start (a limit, say): none of them is left running unattended.
    await supervisor.stopLab(lab, 'not every chaos worker could start');
    throw error;
  }

  const started = Date.now();
  const progress = async (): Promise<ChaosProgress> => ({
    // The database away for a moment: the progress counts no events this time, the next reading catches up.
    ...tallyChaos((await listEvents({ lab: lab.id }).catch(() => [])).map(toWire), Date.now() - started),
    ...actions.counts,
  });
  const ticker = setInterval(() => {
    void progress().then((p) => request.onProgress?.(p));
  }, PROGRESS_EVERY_MS);
  let elapsedMs = 0;
  let planned = 0;
  let plannedSeconds = 0;
  let rounds = 0;
  const runTrack = async (plan: ChaosAction[], track: ChaosTrack, from: number, until: number) => {
    for (const action of plan.filter((a) => trackOf(a) === track)) {
      const wait = from + action.at - Date.now();
      if (wait > 0) await sleep(wait);
      // An action the run fell behind on (a strike waited for a holder) is dropped, not piled up.
      if (Date.now() > until) break;
      const outcome = await actions.apply(action).catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        skipped.push({ action, reason });
        return `skipped: ${reason}`;
      });
      request.onAction?.(action, outcome);
    }
  };
  const shown = async () =>
    // The database away at that moment: not shown yet, and the run goes on (at most MAX_MORE_ROUNDS).
    request.enough ? request.enough((await listEvents({ lab: lab.id }).catch(() => [])).map(toWire)) : true;
  try {
    for (;;) {
      rounds++;
      const roundSeconds = rounds === 1 ? seconds : Math.min(seconds, MORE_SECONDS);
      const plan = planFor(rounds, roundSeconds);
      const from = rounds === 1 ? started : Date.now();
      const until = from + roundSeconds * 1000;
      planned += plan.length;
      plannedSeconds += roundSeconds;
      await Promise.all(CHAOS_TRACKS.map((track) => runTrack(plan, track, from, until)));
      const rest = until - Date.now();
      if (rest > 0) await sleep(rest);
      if (rounds > MAX_MORE_ROUNDS || (await shown())) break;
      request.onMore?.(rounds + 1, Math.min(seconds, MORE_SECONDS));
      // A crash whose restart the run dropped (it fell behind as its time ran out): back for the round.
      await actions.restartCrashed();
    }
    await actions.releaseAll();
  } finally {
    clearInterval(ticker);
    elapsedMs = Date.now() - started;
    await supervisor.stopLab(lab, 'the chaos run was over');
  }

  const events = (await listEvents({ lab: lab.id })).map(toWire);
  const row = await readLabRow(lab);
  const finalRow = row ? { value: row.value, lastToken: row.lastToken } : undefined;
  return {
    lab: lab.id,
    seed,
    workers: names.length,
    seconds,
    rounds,
    plannedSeconds,
    planned,
    skipped,
    totals: { ...tallyChaos(events, elapsedMs), ...actions.counts },
    ...(finalRow ? { finalRow } : {}),
    verdict: checkHistory(events, finalRow),
    events,
  };
}
