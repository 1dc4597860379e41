/*
 * Tests of one file that run side by side (`describe(name, { concurrency: N }, …)`) and drive the
 * same shared lab take turns at it: `inTurn(['fenced'], run)` runs `run` once no other test of the
 * file holds the fenced lab, and holds it until `run` ends, passed or failed. A test queues for all
 * its labs at once, first come first served, so tests that need two labs never wait in a circle.
 * Waiting is on the other test's end, never on a time.
 */

export type InTurn = <T>(labs: readonly string[], run: () => Promise<T>) => Promise<T>;

export function labTurns(): InTurn {
  /** Each lab's last holder's end: the next test to take the lab waits for it. */
  const ends = new Map<string, Promise<void>>();
  return async (labs, run) => {
    const mine = [...new Set(labs)];
    let release = () => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const before = mine.map((lab) => ends.get(lab) ?? Promise.resolve());
    for (const lab of mine) ends.set(lab, done);
    await Promise.all(before);
    try {
      return await run();
    } finally {
      release();
    }
  };
}
