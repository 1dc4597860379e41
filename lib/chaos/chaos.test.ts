import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closePool } from '../../db/pool';
import { planChaos } from '../model/chaos-plan';
import { sharedLab } from '../model/lab-instance';
import { getSupervisor } from '../supervisor/supervisor';
import { runChaos } from './run-chaos';

/*
 * A short seeded chaos run with real workers: with the guard on the checker finds nothing; the same
 * seed with fencing off finds the damage and names it.
 */

const SEED = 42;
const WORKERS = 4;
// Long enough that the holder frozen in its critical window wakes well before the run ends.
const SECONDS = 14;

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

test('the seed really freezes the lease holder past its lease in its critical window', () => {
  const plan = planChaos({
    seed: SEED,
    workers: ['A', 'B', 'C', 'D'],
    seconds: SECONDS,
    leaseTtlMs: 1_500,
    dbCrash: false,
  });
  const strike = plan.find((a) => a.kind === 'pause' && a.worker === 'holder' && a.criticalWindow && a.ms > 1_500);
  assert.ok(strike && strike.kind === 'pause');
  assert.ok(strike.at + strike.ms < (SECONDS - 3) * 1_000, 'it wakes with time to spare');
});

test('guard on: 0 violations, and the row ends as the last accepted write left it', async () => {
  const report = await runChaos({ lab: sharedLab('fenced'), seed: SEED, workers: WORKERS, seconds: SECONDS });
  assert.deepEqual(report.verdict.violations, []);
  assert.ok(report.totals.accepted > 10, `${report.totals.accepted} writes accepted`);
  assert.ok(report.totals.pauses > 0 && report.totals.grants > 1, JSON.stringify(report.totals));
});

test('fencing off, same seed: the checker finds the damage and names it', async () => {
  const report = await runChaos({ lab: sharedLab('no-fencing'), seed: SEED, workers: WORKERS, seconds: SECONDS });
  assert.equal(
    report.verdict.ok,
    false,
    `no damage found: ${JSON.stringify({ totals: report.totals, skipped: report.skipped })}`,
  );
  const lost = report.verdict.violations.find((v) => v.rule === 'token-went-back');
  assert.ok(lost, JSON.stringify(report.verdict.violations));
  assert.match(
    lost.message,
    /^lost update: \w's value "\w-\d+" \(token \d+\) overwritten by \w with token \d+ at \d\d:\d\d:\d\d\.\d{3}$/,
  );
  assert.equal(lost.eventIds.length, 2);
});
