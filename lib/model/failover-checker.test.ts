import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkFailover, type FailoverStep } from './failover-checker';

const grant = (holder: string, token: string, server: 'primary' | 'promoted standby' = 'primary'): FailoverStep => ({
  kind: 'grant',
  holder,
  resource: 'lab/failover',
  token,
  server,
});
const write = (
  holder: string,
  token: string,
  value: string,
  accepted: boolean,
  server: 'primary' | 'promoted standby' = 'primary',
): FailoverStep =>
  accepted
    ? { kind: 'write', holder, token, value, server, accepted }
    : { kind: 'write', holder, token, value, server, accepted, rowToken: '2' };
const promoted = (value: string, lastToken: string, holder: string, token: string): FailoverStep => ({
  kind: 'standby_promoted',
  row: { value, lastToken },
  lease: { resource: 'lab/failover', holder, token },
});

test('the asynchronous loss: each violation named, with the holders, values and tokens', () => {
  const violations = checkFailover([
    grant('A', '1'),
    write('A', '1', 'A-1', true),
    { kind: 'replication_cut' },
    grant('B', '2'),
    write('B', '2', 'B-1', true),
    { kind: 'primary_killed' },
    promoted('A-1', '1', 'A', '1'),
    write('A', '1', 'A-2', true, 'promoted standby'),
    grant('C', '2', 'promoted standby'),
  ]);
  assert.deepEqual(
    violations.map((v) => v.message),
    [
      `acknowledged write lost: B's write "B-1" (token 2), acknowledged by the primary, is not on the promoted standby: its row holds "A-1" with token 1`,
      `acknowledged grant lost: B's lease of lab/failover (token 2), acknowledged by the primary, is not on the promoted standby: its lease is A's, token 1`,
      `stale write accepted: A wrote "A-2" with token 1 on the promoted standby, after B's write "B-1" with the newer token 2 had been acknowledged`,
      'token granted twice: 2 to B (lab/failover) by the primary, and again to C (lab/failover) by the promoted standby',
    ],
  );
  assert.deepEqual(
    violations.map((v) => v.kind),
    ['acknowledged-write-lost', 'acknowledged-write-lost', 'stale-write-accepted', 'token-granted-twice'],
  );
});

test('the synchronous story: nothing to name', () => {
  assert.deepEqual(
    checkFailover([
      grant('A', '1'),
      write('A', '1', 'A-1', true),
      { kind: 'replication_cut' },
      { kind: 'grant_waiting', holder: 'B', waitedMs: 1500 },
      { kind: 'replication_healed' },
      grant('B', '2'),
      write('B', '2', 'B-1', true),
      { kind: 'primary_killed' },
      promoted('B-1', '2', 'B', '2'),
      write('A', '1', 'A-2', false, 'promoted standby'),
      grant('C', '34', 'promoted standby'),
    ]),
    [],
  );
});

test('a repeated write with the current token is no violation; tokens compare as numbers, not text', () => {
  assert.deepEqual(
    checkFailover([
      grant('A', '9'),
      write('A', '9', 'A-1', true),
      write('A', '9', 'A-1', true),
      grant('B', '10'),
      write('B', '10', 'B-1', true),
    ]),
    [],
  );
});
