import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshResource, waitForExpiry } from '../lib/testing/fixtures';
import { backendPid, sessionBlockedBy } from '../lib/testing/lock-waits';
import { waitFor } from '../lib/testing/wait';
import { msUntil } from './database-clock';
import { acquireLease, type Lease, recordExpiredLeases, renewLease } from './leases';
import { closePool, getPool, newClient } from './pool';

after(closePool);

/*
 * The expiry recorder's pass (recordExpiredLeases, as the app role) against a renewal in flight: a renewal
 * that checked `expires_at > clock_timestamp()` just before its lease's end X but commits after X.
 * The pass that runs between must not record an expiry at X: the lease never ran out there. Each
 * lease's expiry is recorded once, at its real end.
 */

async function expiriesOf(lab: string): Promise<Array<{ token: string; expiresAt: string }>> {
  const { rows } = await getPool().query<{ token: string; expires_at: string }>(
    "SELECT token, detail ->> 'expiresAt' AS expires_at FROM events WHERE lab = $1 AND kind = 'lease_expired' ORDER BY id",
    [lab],
  );
  return rows.map((r) => ({ token: r.token, expiresAt: r.expires_at }));
}

test('a renewal committed after the old end, with an expiry pass between: one expiry, at the renewed end', async () => {
  const resource = freshResource('expiry-race');
  const lab = `expiry-race-${resource}`;
  const granted = await acquireLease({ lab, resource, holder: 'A', ttlMs: 1_000 });
  assert.equal(granted.outcome, 'granted');
  const lease = (granted as { lease: Lease }).lease;

  const renewer = newClient();
  await renewer.connect();
  const renewerPid = await backendPid(renewer);
  try {
    // The renewal's statement runs well before X, by the database's clock…
    await sleep(Math.max(0, (await msUntil(lease.expiresAt)) - 300));
    await renewer.query('BEGIN');
    const renewed = await renewLease({ lab, resource, holder: 'A', token: lease.token, ttlMs: 1_500 }, renewer);
    assert.equal(renewed.outcome, 'renewed', 'renewed before its end');
    // …and commits after it, with an expiry pass between: the renewal commits once the pass has
    // run (it skips the locked lease) or waits for the renewal's lock, as the database shows.
    await waitForExpiry(lease);
    await sleep(50);
    let passDone = false;
    const pass = recordExpiredLeases().finally(() => {
      passDone = true;
    });
    await waitFor(
      async () => passDone || (await sessionBlockedBy(renewerPid)) !== undefined,
      'the expiry pass to run, or to wait for the renewal',
    );
    await renewer.query('COMMIT');
    await pass;
    assert.deepEqual(await expiriesOf(lab), [], 'the lease did not run out at its old end');

    const current = (renewed as { lease: Lease }).lease;
    await waitForExpiry(current);
    await recordExpiredLeases();
    await recordExpiredLeases();
    const { rows } = await getPool().query<{ iso: string }>('SELECT fl_iso($1) AS iso', [current.expiresAt]);
    assert.deepEqual(
      await expiriesOf(lab),
      [{ token: String(lease.token), expiresAt: rows[0]?.iso }],
      'one expiry, at the end the renewal gave it',
    );
  } finally {
    await renewer.query('ROLLBACK').catch(() => undefined);
    await renewer.end();
  }
});
