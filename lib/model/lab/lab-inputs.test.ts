import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOOK_ALIKE_NAMES } from '../../testing/look-alike-names';
import { WORKER_BOUNDS, WORKER_NAME_WORDS } from '../core/input-bounds';
import { workerSettingsSchema } from './lab-inputs';

/*
 * The Start form's rules, read from lib/model/core/input-bounds.ts, which the database enforces too
 * (db/worker-bounds.test.ts): a name of ASCII letters and digits (issue 33 item 4), a lease of at
 * most a minute (item 5).
 */

const refusal = (settings: Record<string, unknown>) => {
  const parsed = workerSettingsSchema.safeParse(settings);
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
};

test("look-alike letters outside ASCII are refused, in worker_join's words", () => {
  for (const [what, name] of LOOK_ALIKE_NAMES) assert.equal(refusal({ name }), WORKER_NAME_WORDS.letters, what);
  assert.equal(WORKER_NAME_WORDS.letters, 'a worker name is letters and digits of ASCII, space, _ . -');
  for (const name of ['A', 'Ada Lovelace', 'far_2.0-b', 'x'.repeat(40)])
    assert.equal(refusal({ name }), undefined, name);
  assert.equal(refusal({ name: 'x'.repeat(41) }), WORKER_NAME_WORDS.length);
  assert.equal(refusal({ name: 'Ada  Lovelace' }), WORKER_NAME_WORDS.spaces);
  assert.equal(refusal({ name: 'w12' }), WORKER_NAME_WORDS.workerId);
});

test('the lease TTL and the write value are bounded as the database bounds them', () => {
  assert.equal(refusal({ name: 'A', leaseTtlMs: WORKER_BOUNDS.lease_ttl_ms_max }), undefined);
  assert.equal(refusal({ name: 'A', leaseTtlMs: 600_000 }), 'lease TTL must be at most 60000 ms');
  assert.equal(
    refusal({ name: 'A', leaseTtlMs: WORKER_BOUNDS.lease_ttl_ms_min - 1 }),
    'lease TTL must be at least 500 ms',
  );
  assert.match(
    refusal({ name: 'A', writeValue: 'v'.repeat(WORKER_BOUNDS.write_value_max_chars + 1) }) ?? '',
    /at most 100/,
  );
});
