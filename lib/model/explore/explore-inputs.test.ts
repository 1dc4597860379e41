import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explorableAt, exploreHref, parseExploreAddress } from './explore-inputs';

test("the Explore page's address: defaults, a path, and each bad value told in words", () => {
  assert.deepEqual(parseExploreAddress({}), {
    ok: true,
    address: { holders: 2, writes: 3, renew: false, sync: false, path: [] },
  });
  assert.deepEqual(parseExploreAddress({ holders: '3', writes: '2', path: '0.1.0' }), {
    ok: true,
    address: { holders: 3, writes: 2, renew: false, sync: false, path: [0, 1, 0] },
  });
  assert.deepEqual(parseExploreAddress({ renew: '1' }), {
    ok: true,
    address: { holders: 2, writes: 3, renew: true, sync: false, path: [] },
  });
  const refusals: Array<[Record<string, string | string[]>, string]> = [
    [{ holders: '9' }, 'holders is at most 3'],
    [{ holders: '0' }, 'holders is at least 1'],
    [{ writes: '1e3' }, 'writes is a whole number'],
    [{ path: '0.x' }, 'a path is steps like 0.2.1'],
    [{ path: '0..1' }, 'a path is steps like 0.2.1'],
    [{ path: Array.from({ length: 31 }, () => '0').join('.') }, 'a path is steps like 0.2.1'],
    [{ path: ['1', '2'] }, 'path is given more than once'],
    [{ renew: 'yes' }, 'renew is 0 or 1'],
    [{ sync: 'true' }, 'sync is 0 or 1'],
  ];
  for (const [params, words] of refusals) {
    const parsed = parseExploreAddress(params);
    assert.equal(parsed.ok, false, JSON.stringify(params));
    assert.match(parsed.ok ? '' : parsed.error, new RegExp(words.replace('.', '\\.')), JSON.stringify(params));
  }
  assert.equal(
    exploreHref('no-fencing', { holders: 2, writes: 2, renew: true, sync: false, path: [0, 1] }),
    '/labs/no-fencing/explore?holders=2&writes=2&renew=1&path=0.1',
  );
  assert.equal(
    exploreHref('fenced', { holders: 2, writes: 3, renew: false, sync: false, path: [] }),
    '/labs/fenced/explore?holders=2&writes=3',
  );
});

test('the failover lab on the Explore page: asynchronous, or synchronous with sync=1; nobody renews', () => {
  assert.equal(
    exploreHref('failover', { holders: 2, writes: 2, renew: false, sync: true, path: [0] }),
    '/labs/failover/explore?holders=2&writes=2&sync=1&path=0',
  );
  const lab = (address: { renew: boolean; sync: boolean; holders?: number; writes?: number }) => {
    const found = explorableAt('failover', { holders: 2, writes: 3, ...address });
    return 'refusal' in found ? found.refusal : `${found.title} ${JSON.stringify(found.write)}`;
  };
  assert.equal(
    lab({ renew: false, sync: false }),
    'Failover (asynchronous replication) {"table":"fo_rows","replication":"async"}',
  );
  assert.equal(
    lab({ renew: false, sync: true }),
    'Failover (synchronous replication) {"table":"fo_rows","replication":"sync"}',
  );
  assert.match(lab({ renew: true, sync: false }), /its holders do not renew their leases/);
  assert.match(
    lab({ renew: false, sync: false, holders: 3, writes: 2 }),
    /is explored here at 2 × 2, 2 × 3, 3 × 1: .*\(npm run explore -- --lab failover --holders 3 --writes 2\)/,
  );
  const fenced = explorableAt('fenced', { holders: 3, writes: 3, renew: false, sync: true });
  assert.match('refusal' in fenced ? fenced.refusal : '', /Fenced has no replication to make synchronous/);
});
