import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { isFencingError } from '../lib/model/core/errors';
import { freshResource, grant, TEST_LAB, waitForExpiry } from '../lib/testing/fixtures';
import { msUntil } from './database-clock';
import { listEvents } from './events';
import { acquireLease, type Lease, readLease, releaseLease, renewLease } from './leases';
import { closePool, getPool, newClient } from './pool';

after(closePool);

describe('acquire', () => {
  test('a held lease is busy for everyone else until it expires by the database clock', async () => {
    const resource = freshResource();
    const a = await grant(resource, 'A', 400);
    const busy = await acquireLease({ lab: TEST_LAB, resource, holder: 'B', ttlMs: 400 });
    assert.equal(busy.outcome, 'busy');
    assert.equal(busy.outcome === 'busy' && busy.heldBy.token, a.token);
    await waitForExpiry(a);
    const takeover = await acquireLease({ lab: TEST_LAB, resource, holder: 'B', ttlMs: 400 });
    assert.equal(takeover.outcome, 'granted');
    if (takeover.outcome !== 'granted') return;
    assert.ok(takeover.lease.token > a.token, 'a takeover of an expired lease mints a new, higher token');
    assert.equal(takeover.tookOverFrom?.token, a.token);
    assert.ok(takeover.lease.acquiredAt >= a.expiresAt, 'granted only after the old lease expired');
  });

  test('expiry is judged on the database clock: the lease row carries database timestamps', async () => {
    const resource = freshResource();
    const lease = await grant(resource, 'A', 1_000);
    const { rows } = await getPool().query<{ ms: number }>(
      'SELECT extract(epoch FROM expires_at - acquired_at) * 1000 AS ms FROM leases WHERE resource = $1',
      [resource],
    );
    assert.equal(Math.round(Number(rows[0]?.ms)), 1_000);
    assert.deepEqual(await readLease(resource), lease);
  });

  test('the grant and its token are recorded together, with the expiry noticed by the taker', async () => {
    const resource = freshResource();
    const lab = `lease-${resource}`;
    const a = (await acquireLease({ resource, holder: 'A', ttlMs: 150, lab })) as {
      lease: { token: number; expiresAt: Date };
    };
    await waitForExpiry(a.lease as never);
    await acquireLease({ resource, holder: 'B', ttlMs: 150, lab });
    const events = await listEvents({ lab });
    assert.deepEqual(
      events.map((e) => [e.kind, e.actor]),
      [
        ['lease_acquired', 'A'],
        ['lease_expired', 'A'],
        ['lease_acquired', 'B'],
      ],
    );
  });

  test('concurrent acquires of a free lease: exactly one wins', async () => {
    const resource = freshResource();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => acquireLease({ lab: TEST_LAB, resource, holder: `h${i}`, ttlMs: 5_000 })),
    );
    assert.equal(results.filter((r) => r.outcome === 'granted').length, 1);
  });

  for (const [label, request, message] of [
    ['an empty holder', { holder: '' }, /holder must not be empty/],
    ['an empty resource', { resource: ' ' }, /resource must not be empty/],
    ['a zero TTL', { ttlMs: 0 }, /lease TTL must be at least 100 ms/],
    ['a negative TTL', { ttlMs: -5 }, /at least 100 ms/],
    ['an absurd TTL', { ttlMs: 1e12 }, /at most 60000 ms/],
    ['a ten-minute TTL', { ttlMs: 600_000 }, /at most 60000 ms/],
    ['a TTL as text', { ttlMs: '1000' }, /number of milliseconds/],
    ['a fractional TTL', { ttlMs: 250.5 }, /whole number of milliseconds/],
  ] as const) {
    test(`bad input: ${label} is refused and nothing is granted`, async () => {
      const resource = freshResource();
      await assert.rejects(
        acquireLease(Object.assign({ resource, holder: 'A', ttlMs: 1_000 }, request)),
        (error) => isFencingError(error, 'invalid_input') && message.test(error.message),
      );
      assert.equal(await readLease(resource), undefined);
    });
  }
});

/*
 * Expiry is the database's clock at the moment of the call (clock_timestamp()), not the start of the
 * caller's transaction (now()): a grant or a renewal late in a transaction that began while the lease
 * still ran must see that it has run out. And a refused acquire mints nothing: the token is minted
 * only once the grant is decided, in its transaction.
 */
describe('expiry at the moment of the call, tokens only for grants', () => {
  let session: pg.Client;
  before(async () => {
    session = newClient();
    await session.connect();
  });
  after(() => session.end());

  /** Opens a transaction while `lease` runs, then waits in it (on the database) until it has expired. */
  async function lateInTransaction(lease: Lease): Promise<void> {
    await session.query('BEGIN');
    assert.ok((await msUntil(lease.expiresAt, session)) > 0, 'the transaction began while the lease ran');
    await session.query(
      'SELECT pg_sleep(greatest(0, extract(epoch FROM $1::timestamptz - clock_timestamp())) + 0.02)',
      [lease.expiresAt],
    );
  }

  test('a grant late in a transaction begun while the old lease ran takes over the lease that has since expired', async () => {
    const resource = freshResource();
    const a = await grant(resource, 'A', 300);
    await lateInTransaction(a);
    const b = await acquireLease({ lab: TEST_LAB, resource, holder: 'B', ttlMs: 300 }, session);
    await session.query('COMMIT');
    assert.equal(b.outcome, 'granted');
  });

  test('a renewal late in a transaction begun while the lease ran is refused: the lease has expired', async () => {
    const resource = freshResource();
    const a = await grant(resource, 'A', 300);
    await lateInTransaction(a);
    const renewal = await renewLease({ lab: TEST_LAB, resource, holder: 'A', token: a.token, ttlMs: 300 }, session);
    await session.query('COMMIT');
    assert.equal(renewal.outcome, 'lost');
  });

  test('a refused acquire mints no token', async () => {
    const resource = freshResource();
    await grant(resource, 'A', 5_000);
    const sequence = async () => (await session.query('SELECT last_value, is_called FROM write_epoch')).rows[0];
    const before = await sequence();
    const busy = await acquireLease({ lab: TEST_LAB, resource, holder: 'B', ttlMs: 300 });
    assert.equal(busy.outcome, 'busy');
    assert.deepEqual(await sequence(), before);
  });
});

describe('renew and release', () => {
  test('renew works only while the token is current and not expired', async () => {
    const resource = freshResource();
    const a = await grant(resource, 'A', 300);
    const renewed = await renewLease({ lab: TEST_LAB, resource, holder: 'A', token: a.token, ttlMs: 300 });
    assert.equal(renewed.outcome, 'renewed');
    assert.ok(renewed.outcome === 'renewed' && renewed.lease.expiresAt > a.expiresAt);
    assert.equal(renewed.outcome === 'renewed' && renewed.lease.token, a.token, 'renewal keeps the token');

    const wrongToken = await renewLease({ lab: TEST_LAB, resource, holder: 'A', token: a.token + 1, ttlMs: 300 });
    assert.equal(wrongToken.outcome, 'lost');

    await waitForExpiry((renewed as { lease: typeof a }).lease);
    const late = await renewLease({ lab: TEST_LAB, resource, holder: 'A', token: a.token, ttlMs: 300 });
    assert.equal(late.outcome, 'lost', 'an expired lease cannot be renewed, even before anyone takes it');
  });

  test('after a takeover the old holder learns it lost the lease', async () => {
    const resource = freshResource();
    const a = await grant(resource, 'A', 150);
    await waitForExpiry(a);
    const b = await grant(resource, 'B', 5_000);
    const renewal = await renewLease({ lab: TEST_LAB, resource, holder: 'A', token: a.token, ttlMs: 150 });
    assert.deepEqual(renewal, { outcome: 'lost', current: b });
  });

  test('release frees the lease for the next holder, who gets a newer token', async () => {
    const resource = freshResource();
    const a = await grant(resource, 'A', 5_000);
    assert.deepEqual(await releaseLease({ lab: TEST_LAB, resource, holder: 'B', token: a.token }), {
      outcome: 'not_held',
      current: a,
    });
    assert.deepEqual(await releaseLease({ lab: TEST_LAB, resource, holder: 'A', token: a.token }), {
      outcome: 'released',
    });
    const b = await grant(resource, 'B', 5_000);
    assert.ok(b.token > a.token);
  });
});
