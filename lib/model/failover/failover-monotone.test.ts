import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { failoverHistory } from '../../testing/failover-histories';
import { failoverProgress, failoverReached, failoverRun, failoverWalkthrough } from './failover-walkthrough';

/*
 * The failover walkthrough's steps never go down as events come (as walkthrough-monotone.test.ts
 * holds the worker labs'): over generated histories of both modes, with free play between the
 * story's steps, each prefix one event longer does at least as many steps, and reaches at least
 * the same step. The one way back is the pair stopped: its story is over and the walkthrough starts
 * again, by design (failoverStory).
 */

const HISTORIES = 500;

test(`failover: the steps done and reached never go down as events come, in ${HISTORIES} generated histories`, {
  timeout: 120_000,
}, () => {
  let stops = 0;
  let whole = 0;
  fc.assert(
    fc.property(failoverHistory(), (events) => {
      const mode = events[0]?.detail.mode === 'sync' ? 'sync' : 'async';
      const walkthrough = failoverWalkthrough(mode);
      let done = 0;
      let reached = 0;
      for (let n = 1; n <= events.length; n++) {
        const prefix = failoverRun(events.slice(0, n), mode);
        const nowDone = failoverProgress(walkthrough, prefix);
        const nowReached = failoverReached(walkthrough, prefix);
        if (events[n - 1]?.kind === 'pair_stopped') {
          stops++;
          assert.equal(nowDone, 0, 'a stopped pair: the walkthrough starts again');
        } else {
          assert.ok(nowDone >= done, `${done} steps done after ${n - 1} events, only ${nowDone} after ${n}`);
          assert.ok(
            nowReached >= reached,
            `step ${reached + 1} reached after ${n - 1} events, ${nowReached + 1} after ${n}`,
          );
        }
        done = nowDone;
        reached = nowReached;
      }
      if (reached === walkthrough.length - 1 || events.at(-1)?.kind === 'pair_stopped') whole++;
    }),
    { numRuns: HISTORIES, seed: 34 },
  );
  assert.ok(stops > 0, 'some histories end with the pair stopped');
  assert.ok(whole > HISTORIES / 2, `${whole} of ${HISTORIES} histories told to the verdict (or stopped after it)`);
});
