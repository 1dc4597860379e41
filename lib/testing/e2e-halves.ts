/*
 * How `npm test` splits the e2e spec files into halves that run side by side
 * (FENCING_LAB_E2E_HALVES=2, lib/testing/run-suites.ts): by each file's measured time, the longest
 * first into the half with less so far, so that the halves end together. Dealt in turn by name, the
 * two halves of 12-07's files came to 886 and 635 s; by time, 773 and 771 s.
 */

/**
 * Seconds per spec file in one e2e run, from the clean-clone CI on 7613e6c (12-07, `[e2e]` lines of
 * `.ci/run`, summed per file). Only the proportions matter: a file not listed counts UNLISTED_SECONDS;
 * a name listed that no file has fails lib/testing/e2e-halves.test.ts.
 */
export const E2E_SPEC_SECONDS: Readonly<Record<string, number>> = {
  'presenter-fit': 237,
  'watcher-follows-trainer': 105,
  faults: 88,
  'your-client': 76,
  'walkthrough-reload': 74,
  'new-failure-labs': 71,
  failover: 59,
  compare: 56,
  'feed-heals': 47,
  'two-servers': 45,
  presenter: 43,
  autoplay: 36,
  'delayed-packet': 34,
  explore: 34,
  sweep: 34,
  session: 32,
  hydration: 31,
  poll: 30,
  reload: 30,
  'stalled-walkthrough': 27,
  'long-history': 26,
  limits: 24,
  'chaos-run': 24,
  'your-client-shared': 24,
  a11y: 23,
  'guard-queue': 20, // not read from that log: UNLISTED_SECONDS
  'your-guard': 20,
  home: 19,
  walkthrough: 18,
  'failover-shutdown': 18,
  'timeline-keyboard': 17,
  'replay-export': 17,
  'remote-worker': 17,
  'timeline-labels': 15,
  'free-play': 12,
  'checker-banner': 12,
  'presenter-freeze-before-write': 10,
  'without-fencing': 10,
  'presenter-legibility': 10,
  'guard-counterexample-fold': 8,
  'shared-lab-reset': 7,
  'bad-requests': 3,
  'quiet-build': 1,
};

/** A spec file the table does not know yet: about a middling file's time. */
export const UNLISTED_SECONDS = 20;

/** The table's name for a spec file: `e2e/presenter-fit.spec.ts` is `presenter-fit`. */
export const specName = (file: string): string => file.replace(/^.*\//, '').replace(/\.spec\.ts$/, '');

/**
 * The spec files in `count` parts of about equal time (longest first, each into the part with the
 * least so far; ties by name, so the same files always split the same way), each part in name order.
 */
export function splitSpecs(
  files: readonly string[],
  count: number,
  seconds: Readonly<Record<string, number>> = E2E_SPEC_SECONDS,
): string[][] {
  const time = (file: string) => seconds[specName(file)] ?? UNLISTED_SECONDS;
  const parts = Array.from({ length: count }, () => ({ files: [] as string[], seconds: 0 }));
  const longestFirst = [...files].sort((a, b) => time(b) - time(a) || a.localeCompare(b));
  for (const file of longestFirst) {
    const least = parts.reduce((best, part) => (part.seconds < best.seconds ? part : best));
    least.files.push(file);
    least.seconds += time(file);
  }
  return parts.map((part) => part.files.sort());
}
