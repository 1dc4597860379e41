import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { closePool } from '../../db/pool';
import { planChaos } from '../model/chaos/chaos-plan';
import { tallyChaos } from '../model/chaos/chaos-tally';
import { checkHistory } from '../model/checker/checker';
import { sharedLab } from '../model/lab/lab-instance';
import { getSupervisor } from '../supervisor/supervisor';
import { CHAOS_WORKER, runChaos } from './run-chaos';

/*
 * A short seeded chaos run with real workers, aimed at the critical window: with the fenced write on it
 * makes many stale write attempts and the checker finds nothing (every one rejected); the same seed
 * with fencing off lets stale writes through, and the checker finds the damage and names it.
 */

const SEED = 42;
const WORKERS = 4;
// Long enough that the holder frozen in its critical window wakes well before the run ends.
const SECONDS = 14;
const MIN_STALE_ATTEMPTS = 8;

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

/*
 * The two runs are in different labs (fenced, no-fencing) and run side by side: each is 14 s of real
 * chaos, and the floor of stale attempts below is a third of what a loaded machine makes; a run that
 * has not reached it (or, fencing off, shown the damage) when its time is up goes on (runChaos's `enough`).
 */
describe('seed 42, aimed at the critical window', { concurrency: 2 }, () => {
  test('the seed really freezes the lease holder past its lease in its critical window', () => {
    const plan = planChaos({
      seed: SEED,
      workers: ['A', 'B', 'C', 'D'],
      seconds: SECONDS,
      leaseTtlMs: CHAOS_WORKER.leaseTtlMs,
      dbCrash: false,
    });
    const strike = plan.find(
      (a) => a.kind === 'pause' && a.worker === 'holder' && a.criticalWindow && a.ms > CHAOS_WORKER.leaseTtlMs,
    );
    assert.ok(strike && strike.kind === 'pause');
    assert.ok(strike.at + strike.ms < (SECONDS - 3) * 1_000, 'it wakes with time to spare');
  });

  test('fenced write on: 0 violations, and the row ends as the last accepted write left it', async () => {
    const report = await runChaos({
      lab: sharedLab('fenced'),
      seed: SEED,
      workers: WORKERS,
      seconds: SECONDS,
      // A loaded machine makes fewer leases in 14 s: the run goes on until the floor is reached.
      enough: (events) => tallyChaos(events, 0).staleAttempts >= MIN_STALE_ATTEMPTS,
    });
    const t = report.totals;
    assert.deepEqual(report.verdict.violations, []);
    assert.ok(t.accepted > 10, `${t.accepted} writes accepted`);
    assert.ok(t.freezes.criticalWindow > 0 && t.forcedTakeovers > 0 && t.grants > 1, JSON.stringify(t));
    // About 100 a minute on a loaded 2-CPU machine: a third of that is the floor, and every one refused.
    assert.ok(t.staleAttempts >= MIN_STALE_ATTEMPTS, `only ${t.staleAttempts} stale attempts: ${JSON.stringify(t)}`);
    assert.equal(t.staleAccepted, 0);
    assert.equal(t.rejected, t.staleAttempts, 'every rejection was of a stale write, and every stale write rejected');
    assert.equal(
      report.finalRow?.lastToken,
      Math.max(...report.events.filter((e) => e.kind === 'write_accepted').map((e) => e.token ?? 0)),
    );
  });

  test('fencing off, same seed: the checker finds the damage and names it', async () => {
    const report = await runChaos({
      lab: sharedLab('no-fencing'),
      seed: SEED,
      workers: WORKERS,
      seconds: SECONDS,
      enough: (events) => checkHistory(events).violations.some((v) => v.rule === 'token-went-back'),
    });
    assert.equal(
      report.verdict.ok,
      false,
      `no damage found: ${JSON.stringify({ totals: report.totals, skipped: report.skipped })}`,
    );
    const lost = report.verdict.violations.find((v) => v.rule === 'token-went-back');
    assert.ok(lost, JSON.stringify(report.verdict.violations));
    assert.match(
      lost.message,
      /^lost update: \w's value "\w-\d+" \(token \d+\) overwritten by \w with token \d+ at \d\d:\d\d:\d\d\.\d{3} — the row went back to an older token/,
    );
    assert.deepEqual(lost.findings.find((f) => f.rule === 'token-went-back')?.eventIds.length, 2);
    assert.ok(report.totals.staleAccepted > 0, JSON.stringify(report.totals));
  });
});
