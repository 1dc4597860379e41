import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { isFencingError } from '../lib/model/core/errors';
import { freshResource, freshRow, grant, TEST_LAB, waitForExpiry } from '../lib/testing/fixtures';
import { listEvents } from './events';
import { fencedWrite, readProtectedRow } from './fenced-write';
import { closePool } from './pool';

after(closePool);

describe('the seed test: a paused holder replays its write after a takeover', () => {
  test('the write with the older token is stale, distinguishable, and the newer value stays', async () => {
    const row = await freshRow();
    const resource = freshResource();
    const first = await grant(resource, 'A');
    await waitForExpiry(first);
    const second = await grant(resource, 'B');
    assert.ok(second.token > first.token, 'a takeover mints a newer token');

    const accepted = await fencedWrite({ lab: TEST_LAB, rowId: row.id, value: 'B-1', token: second.token, actor: 'B' });
    assert.deepEqual(accepted, { outcome: 'accepted', rowId: row.id, value: 'B-1', token: second.token });

    const replay = await fencedWrite({ lab: TEST_LAB, rowId: row.id, value: 'A-late', token: first.token, actor: 'A' });
    assert.deepEqual(replay, {
      outcome: 'stale',
      rowId: row.id,
      presentedToken: first.token,
      storedToken: second.token,
    });

    const stored = await readProtectedRow(row.id);
    assert.equal(stored?.value, 'B-1');
    assert.equal(stored?.lastToken, second.token);

    await assert.rejects(
      fencedWrite({ lab: TEST_LAB, rowId: 2_000_000_000, value: 'x', token: second.token, actor: 'B' }),
      (error) => isFencingError(error, 'unknown_row') && /no protected row 2000000000/.test(error.message),
      'an unknown row is its own error, not "stale"',
    );
  });

  test('each outcome is recorded as an event in the same transaction as the write', async () => {
    const row = await freshRow();
    const lease = await grant(freshResource(), 'writer');
    const lab = `events-${row.id}`;
    await fencedWrite({ rowId: row.id, value: 'v', token: lease.token, actor: 'writer', lab });
    await fencedWrite({ rowId: row.id, value: 'old', token: 1, actor: 'ghost', lab });
    const events = await listEvents({ lab });
    assert.deepEqual(
      events.map((e) => [e.kind, e.actor, e.token, e.storedToken]),
      [
        ['write_accepted', 'writer', lease.token, undefined],
        ['write_rejected', 'ghost', 1, lease.token],
      ],
    );
  });
});

describe('repeated writes under one token (policy <=)', () => {
  test('a retried write with the current token is accepted again and changes nothing else', async () => {
    const row = await freshRow();
    const lease = await grant(freshResource(), 'A');
    const write = { lab: TEST_LAB, rowId: row.id, value: 'A-1', token: lease.token, actor: 'A' };
    assert.equal((await fencedWrite(write)).outcome, 'accepted');
    assert.equal((await fencedWrite(write)).outcome, 'accepted', 'the retry');
    const stored = await readProtectedRow(row.id);
    assert.deepEqual([stored?.value, stored?.lastToken], ['A-1', lease.token]);
  });

  test('a holder may write several times under its token; an older token still never gets in', async () => {
    const row = await freshRow();
    const resource = freshResource();
    const old = await grant(resource, 'A');
    await waitForExpiry(old);
    const current = await grant(resource, 'B');
    for (const value of ['B-1', 'B-2', 'B-3']) {
      assert.equal(
        (await fencedWrite({ lab: TEST_LAB, rowId: row.id, value, token: current.token, actor: 'B' })).outcome,
        'accepted',
      );
    }
    const stale = await fencedWrite({ lab: TEST_LAB, rowId: row.id, value: 'A-1', token: old.token, actor: 'A' });
    assert.equal(stale.outcome, 'stale');
    assert.equal((await readProtectedRow(row.id))?.value, 'B-3');
  });
});

describe('bad input: a clear error and no row changed', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a negative token', { token: -1 }, /token must be a whole number from 1/],
    ['a zero token', { token: 0 }, /token must be a whole number from 1/],
    ['a fractional token', { token: 7.5 }, /token must be a whole number/],
    ['a token as text', { token: '7' }, /token must be a number, got string "7"/],
    ['a token beyond 2^53', { token: 2 ** 53 + 2 }, /token must be a whole number/],
    ['a missing token', { token: undefined }, /token must be a number/],
    ['an empty actor', { actor: '  ' }, /holder must not be empty/],
    ['a value that is not text', { value: 42 }, /value must be text/],
    ['a row id that is not a whole number', { rowId: 1.5 }, /row id must be a whole number/],
    ['a negative row id', { rowId: -4 }, /row id must be at least 1/],
  ];
  for (const [label, override, message] of cases) {
    test(label, async () => {
      const row = await freshRow('untouched');
      const lease = await grant(freshResource(), 'A');
      await assert.rejects(
        fencedWrite({ lab: TEST_LAB, rowId: row.id, value: 'changed', token: lease.token, actor: 'A', ...override }),
        (error) => isFencingError(error, 'invalid_input') && message.test(error.message),
      );
      const stored = await readProtectedRow(row.id);
      assert.deepEqual([stored?.value, stored?.lastToken], ['untouched', row.lastToken]);
    });
  }

  test('a huge token the sequence never issued is refused by the database', async () => {
    const row = await freshRow('untouched');
    await assert.rejects(
      fencedWrite({ lab: TEST_LAB, rowId: row.id, value: 'blocker', token: Number.MAX_SAFE_INTEGER, actor: 'A' }),
      (error) => isFencingError(error, 'token_not_issued'),
    );
    const stored = await readProtectedRow(row.id);
    assert.deepEqual([stored?.value, stored?.lastToken], ['untouched', row.lastToken]);
  });
});
