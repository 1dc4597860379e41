import assert from 'node:assert/strict';
import { test } from 'node:test';
import { guardShare, guardShareWords } from './guard-share';

/*
 * A trainee's share of guards a minute, as the editor says it once the database refused one
 * (db/guard-shares.test.ts counts them for the whole room): what was used, whose, when to come back.
 */

test('an owner past their share of attacks is told the bound and the seconds to wait', () => {
  assert.equal(
    guardShareWords({ kind: 'attack', by: 'owner', limit: 6, waitSeconds: 54 }),
    'at most 6 attacks a minute: try again in 54 s (your statement is kept)',
  );
});

test('an address past its share is told so, for attacks and refused guards alike', () => {
  assert.equal(
    guardShareWords({ kind: 'attack', by: 'address', limit: 18, waitSeconds: 42 }),
    'at most 18 attacks a minute from your address: try again in 42 s (your statement is kept)',
  );
  assert.equal(
    guardShareWords({ kind: 'refusal', by: 'address', limit: 30, waitSeconds: 1 }),
    'at most 30 refused guards a minute from your address: try again in 1 s (your statement is kept)',
  );
  assert.equal(
    guardShareWords({ kind: 'refusal', by: 'owner', limit: 10, waitSeconds: 60 }),
    'at most 10 refused guards a minute: try again in 60 s (your statement is kept)',
  );
});

test('an address is three people behind one router: three times the owner’s share, over a minute', () => {
  assert.deepEqual(guardShare(6), { perOwner: 6, perAddress: 18, windowMs: 60_000 });
  assert.deepEqual(guardShare(10), { perOwner: 10, perAddress: 30, windowMs: 60_000 });
});
