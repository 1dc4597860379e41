import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../core/random';
import { LEASE_HOLDER, planChaos, trackOf } from './chaos-plan';

const options = { seed: 42, workers: ['A', 'B', 'C', 'D', 'E'], seconds: 30, leaseTtlMs: 1_500, dbCrash: false };

test('the same seed gives the same plan; another seed another plan', () => {
  assert.deepEqual(planChaos(options), planChaos(options));
  assert.notDeepEqual(planChaos(options), planChaos({ ...options, seed: 43 }));
  assert.equal(seededRandom(7)(), seededRandom(7)());
});

test('a plan mixes freezes shorter and longer than the lease, in and out of the critical window, and crashes', () => {
  const plan = planChaos(options);
  const pauses = plan.filter((a) => a.kind === 'pause');
  assert.ok(
    pauses.some((p) => p.ms > options.leaseTtlMs),
    'some pauses outlive the lease',
  );
  assert.ok(
    pauses.some((p) => p.ms < options.leaseTtlMs),
    'some do not',
  );
  assert.ok(pauses.some((p) => p.criticalWindow) && pauses.some((p) => !p.criticalWindow));
  assert.ok(
    pauses.some((p) => p.worker === 'holder') && pauses.some((p) => p.worker !== 'holder'),
    'mostly the holder',
  );
  const crashes = plan.filter((a) => a.kind === 'crash');
  assert.ok(crashes.length > 0);
  for (const crash of crashes) {
    assert.ok(
      plan.some((a) => a.kind === 'restart' && a.worker === crash.worker && a.at > crash.at),
      'each crash is followed by a restart',
    );
  }
});

test('aimed at the window: the holder is struck in its critical window past its lease, often, and forced takeovers run all along', () => {
  const plan = planChaos(options);
  const strikes = plan.filter((a) => a.kind === 'pause' && a.worker === LEASE_HOLDER);
  for (const strike of strikes) {
    assert.ok(strike.kind === 'pause' && strike.criticalWindow, 'every freeze of the holder lands in its window');
    assert.ok(strike.ms >= options.leaseTtlMs * 1.3, `a freeze of ${strike.ms} ms outlasts the lease`);
  }
  // At most 0.6 lease between two strikes, and as often a takeover: over 28 s, at least 28 / 0.9 of each.
  assert.ok(strikes.length >= 28_000 / (options.leaseTtlMs * 0.6), `${strikes.length} strikes at the holder`);
  const takeovers = plan.filter((a) => a.kind === 'takeover');
  assert.ok(takeovers.length >= 28_000 / (options.leaseTtlMs * 0.7), `${takeovers.length} takeovers`);
  assert.equal(plan.filter((a) => a.kind === 'hold').length, 0, 'no held connection where the lab has no packet relay');
  const relayed = planChaos({ ...options, heldConnections: true });
  const holds = relayed.filter((a) => a.kind === 'hold');
  assert.ok(holds.length > 0 && holds.every((h) => h.kind === 'hold' && h.ms > options.leaseTtlMs));
  assert.deepEqual(
    [...new Set(planChaos({ ...options, dbCrash: true }).map(trackOf))].sort(),
    ['database', 'holder', 'lease', 'workers'],
    'four tracks, applied side by side',
  );
});

test('database crashes about every 20 s, at least one', () => {
  const crashesIn = (seconds: number) =>
    planChaos({ ...options, seconds, dbCrash: true })
      .filter((a) => a.kind === 'db-crash')
      .map((a) => a.at);
  assert.deepEqual(crashesIn(10), [5_000]);
  assert.deepEqual(crashesIn(60), [15_000, 30_000, 45_000]);
  assert.deepEqual(
    planChaos(options).filter((a) => a.kind === 'db-crash'),
    [],
  );
});

test('actions stay inside the run and never overlap on one worker; a database crash lands half-way', () => {
  const plan = planChaos({ ...options, dbCrash: true });
  assert.ok(plan.every((a) => a.at >= 1_000 && a.at <= 30_000));
  assert.ok(
    plan.every((a, i) => i === 0 || a.at >= (plan[i - 1]?.at ?? 0)),
    'in time order',
  );
  assert.deepEqual(
    plan.filter((a) => a.kind === 'db-crash').map((a) => a.at),
    [15_000],
  );
  for (const worker of options.workers) {
    let freeAt = 0;
    for (const action of plan.filter((a) => 'worker' in a && a.worker === worker)) {
      if (action.kind === 'restart') {
        freeAt = action.at;
        continue;
      }
      assert.ok(action.at >= freeAt, `${worker}: ${action.kind} at ${action.at} while busy until ${freeAt}`);
      freeAt = action.kind === 'pause' ? action.at + action.ms : Number.POSITIVE_INFINITY;
    }
  }
});
