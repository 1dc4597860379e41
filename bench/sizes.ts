import { FAILOVER_LAB } from '../lib/model/failover/failover-events';
import { type LabId, WORKER_LAB_IDS } from '../lib/model/lab/lab-kinds';

/*
 * Every size a benchmark runs at, in one place: the full size (`npm run bench`) and the quick size
 * (`npm run bench -- --quick`, which `npm test` runs). The quick size checks that each benchmark
 * still runs, end to end, as fast as it can; its figures are printed but say little.
 */

/** A lab whose walkthrough the narration benchmark checks: every worker lab's, and the failover lab's. */
export type NarratedLab = LabId;
export const NARRATED_LABS: readonly NarratedLab[] = [...WORKER_LAB_IDS, FAILOVER_LAB];

export type BenchSizes = {
  throughput: { rounds: number; roundMs: number };
  takeover: { takeovers: number };
  chaos: { seconds: number };
  busyLabs: { labs: number; seconds: number };
  latency: { samples: number };
  fps: { lanes: number; eventsPerLane: number; measureMs: number };
  room: { viewers: number; workers: readonly [number, number, number]; minutes: number };
  faults: { crashes: number };
  history: { events: number; holders: number; spanMinutes: number; restMs: number };
  classroom: {
    trainees: number;
    servers: number;
    /** Every trainee submits within this many seconds of the first. */
    spreadSeconds: number;
    /** Verdicts not in by then are reported missing. */
    boundSeconds: number;
    /** Commit → paint samples on a shared lab while the room submits. */
    paintSamples: number;
  };
  /**
   * Generated histories per lab whose every sentence the narration oracle checks (bench/narration.ts),
   * for these labs (all, by default).
   */
  narration: { historiesPerLab: number; seed: number; labs?: readonly NarratedLab[] | undefined };
  /** The fenced lab's whole space at each of these bounds (bench/explore.ts). */
  explore: { cases: readonly { holders: number; writes: number }[] };
  jobQueue: {
    jobs: number;
    jobMs: number;
    crashJobs: number;
    crashJobMs: number;
    /** A consumer whose heartbeat is older is dead, and its jobs are unlocked. */
    staleAfterMs: number;
    crashBoundMs: number;
    idleMs: number;
  };
};

export const FULL_SIZES: BenchSizes = {
  throughput: { rounds: 3, roundMs: 1_500 },
  takeover: { takeovers: 15 },
  chaos: { seconds: 60 },
  busyLabs: { labs: 30, seconds: 10 },
  latency: { samples: 100 },
  fps: { lanes: 50, eventsPerLane: 1_000, measureMs: 4_000 },
  room: { viewers: 50, workers: [8, 8, 4], minutes: 10 },
  faults: { crashes: 5 },
  history: { events: 200_000, holders: 50, spanMinutes: 60, restMs: 5_000 },
  classroom: { trainees: 30, servers: 1, spreadSeconds: 60, boundSeconds: 600, paintSamples: 100 },
  narration: { historiesPerLab: 100_000, seed: 34 },
  explore: {
    cases: [
      { holders: 2, writes: 3 },
      { holders: 3, writes: 2 },
      { holders: 3, writes: 3 },
    ],
  },
  jobQueue: {
    jobs: 60,
    jobMs: 2_000,
    crashJobs: 4,
    crashJobMs: 5_000,
    staleAfterMs: 2_000,
    crashBoundMs: 60_000,
    idleMs: 10_000,
  },
};

export const QUICK_SIZES: BenchSizes = {
  throughput: { rounds: 1, roundMs: 150 },
  takeover: { takeovers: 2 },
  chaos: { seconds: 8 },
  busyLabs: { labs: 5, seconds: 1 },
  latency: { samples: 10 },
  fps: { lanes: 10, eventsPerLane: 100, measureMs: 1_000 },
  room: { viewers: 6, workers: [1, 1, 1], minutes: 0.1 },
  classroom: { trainees: 3, servers: 2, spreadSeconds: 2, boundSeconds: 240, paintSamples: 5 },
  narration: { historiesPerLab: 100, seed: 34 },
  explore: { cases: [{ holders: 2, writes: 2 }] },
  faults: { crashes: 1 },
  history: { events: 20_000, holders: 50, spanMinutes: 60, restMs: 1_000 },
  jobQueue: {
    jobs: 12,
    jobMs: 300,
    crashJobs: 4,
    crashJobMs: 1_000,
    staleAfterMs: 2_000,
    crashBoundMs: 20_000,
    idleMs: 2_000,
  },
};
