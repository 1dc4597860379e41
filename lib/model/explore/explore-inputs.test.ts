import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exploreHref, parseExploreAddress } from './explore-inputs';

test("the Explore page's address: defaults, a path, and each bad value told in words", () => {
  assert.deepEqual(parseExploreAddress({}), { ok: true, address: { holders: 2, writes: 3, renew: false, path: [] } });
  assert.deepEqual(parseExploreAddress({ holders: '3', writes: '2', path: '0.1.0' }), {
    ok: true,
    address: { holders: 3, writes: 2, renew: false, path: [0, 1, 0] },
  });
  assert.deepEqual(parseExploreAddress({ renew: '1' }), {
    ok: true,
    address: { holders: 2, writes: 3, renew: true, path: [] },
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
  ];
  for (const [params, words] of refusals) {
    const parsed = parseExploreAddress(params);
    assert.equal(parsed.ok, false, JSON.stringify(params));
    assert.match(parsed.ok ? '' : parsed.error, new RegExp(words.replace('.', '\\.')), JSON.stringify(params));
  }
  assert.equal(
    exploreHref('no-fencing', { holders: 2, writes: 2, renew: true, path: [0, 1] }),
    '/labs/no-fencing/explore?holders=2&writes=2&renew=1&path=0.1',
  );
  assert.equal(
    exploreHref('fenced', { holders: 2, writes: 3, renew: false, path: [] }),
    '/labs/fenced/explore?holders=2&writes=3',
  );
});
