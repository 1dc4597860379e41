import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { WORKER_BOUNDS } from '../lib/model/core/input-bounds';
import { type Me, openPrivateLabOnLine } from '../lib/testing/private-lab-line';
import { refusedWith } from '../lib/testing/refused-with';
import { FUNCTIONS_DIR, readFunctionFiles } from './apply-functions';
import { closePool } from './pool';

/*
 * Issue 33 item 5: holding the worker line, `worker_acquire_lease('fenced', …, 600000)` was granted, a
 * ten-minute lease where the Start form caps it at 60 s. One set of bounds now: the forms' schemas
 * read lib/model/core/input-bounds.ts, and db/apply-functions.ts writes the same module into
 * fl_bound, which the worker's functions call. Nothing here is copied by hand.
 */

const INVALID = '22023';

let at: Awaited<ReturnType<typeof openPrivateLabOnLine>>;
let worker: pg.Client;
let owner: pg.Client;

before(async () => {
  at = await openPrivateLabOnLine('bounds');
  ({ worker, owner } = at);
});
after(async () => {
  await at.close();
  await closePool();
});

const join = (name: string): Promise<Me> => at.join(name);

const acquire = (me: Me, ttlMs: number) =>
  worker.query<{ outcome: string; lease_token: string; lease_expires_at: Date; lease_acquired_at: Date }>(
    'SELECT * FROM worker_acquire_lease($1, $2, $3, $4)',
    [me.lab, me.name, me.instance, ttlMs],
  );

test('the database holds the bounds of lib/model/core/input-bounds.ts, each one', async () => {
  for (const [name, value] of Object.entries(WORKER_BOUNDS)) {
    const { rows } = await owner.query<{ bound: string }>('SELECT fl_bound($1) AS bound', [name]);
    assert.equal(Number(rows[0]?.bound), value, name);
  }
  await assert.rejects(owner.query("SELECT fl_bound('no_such_bound')"), /no bound named no_such_bound/);
});

test('a ten-minute lease is refused to the worker line, in words; a minute is granted', async () => {
  const me = await join('Longlease');
  await refusedWith(INVALID, acquire(me, 600_000), 'a 600 s lease');
  await assert.rejects(acquire(me, 600_000), /: lease TTL must be at most 60000 ms$/);
  await assert.rejects(acquire(me, 60_001), /lease TTL must be at most 60000 ms/);
  await assert.rejects(acquire(me, 499), /lease TTL must be at least 500 ms/);
  await assert.rejects(acquire(me, 1_000.5), /lease TTL must be a whole number of milliseconds/);
  const { rows } = await acquire(me, WORKER_BOUNDS.lease_ttl_ms_max);
  assert.equal(rows[0]?.outcome, 'granted');
  const granted = rows[0] as { lease_expires_at: Date; lease_acquired_at: Date; lease_token: string };
  assert.equal(granted.lease_expires_at.getTime() - granted.lease_acquired_at.getTime(), 60_000);
  // A renewal asks for its TTL again: bounded the same way.
  await refusedWith(
    INVALID,
    worker.query('SELECT * FROM worker_renew_lease($1, $2, $3, $4, $5)', [
      me.lab,
      me.name,
      me.instance,
      granted.lease_token,
      600_000,
    ]),
    'a 600 s renewal',
  );
  await worker.query('SELECT * FROM worker_release_lease($1, $2, $3, $4)', [
    me.lab,
    me.name,
    me.instance,
    granted.lease_token,
  ]);
});

test("a worker's write value is as long as the form's at most", async () => {
  const me = await join('Longvalue');
  const { rows } = await acquire(me, 5_000);
  const token = rows[0]?.lease_token;
  const write = (value: string) =>
    worker.query('SELECT * FROM worker_fenced_write($1, $2, $3, $4, $5)', [me.lab, me.name, me.instance, value, token]);
  await refusedWith(INVALID, write('v'.repeat(WORKER_BOUNDS.write_value_max_chars + 1)), 'a 101-character value');
  const { rows: written } = await write('v'.repeat(WORKER_BOUNDS.write_value_max_chars));
  assert.equal((written[0] as { outcome: string }).outcome, 'accepted');
  await worker.query('SELECT * FROM worker_release_lease($1, $2, $3, $4)', [me.lab, me.name, me.instance, token]);
});

/** A number a bound holds, as SQL would spell it (60000, 60_000 is not SQL). */
const LITERAL = (value: number) => new RegExp(`(?<![\\w.])${value}(?![\\w.])`);

test('no function copies a bound by hand: each reads fl_bound (worker_join keeps two, checked here)', async () => {
  // Until worker_join's drift and settings checks read fl_bound too (another change edits that file).
  const kept: Record<string, number[]> = {
    'worker_join.sql': [WORKER_BOUNDS.clock_slow_percent_max, WORKER_BOUNDS.worker_settings_max_bytes],
  };
  const copied: string[] = [];
  const bounds = new Set<number>(Object.values(WORKER_BOUNDS).filter((value) => value >= 40));
  for (const f of await readFunctionFiles()) {
    if (!f.file.startsWith('worker_') && !f.file.startsWith('fl_worker_') && f.file !== 'fl_take_event_budget.sql') {
      continue;
    }
    const code = f.sql.replace(/--.*$/gm, '');
    for (const value of bounds) {
      if (LITERAL(value).test(code) && !kept[f.file]?.includes(value)) copied.push(`${f.file}: ${value}`);
    }
  }
  assert.deepEqual(copied, []);
  // The two kept are the module's values, so that they cannot drift apart unseen.
  const join = await readFile(`${FUNCTIONS_DIR}worker_join.sql`, 'utf8');
  assert.match(join, new RegExp(`NOT BETWEEN 0 AND ${WORKER_BOUNDS.clock_slow_percent_max}\\b`));
  assert.match(join, new RegExp(`octet_length\\(p_settings::text\\) > ${WORKER_BOUNDS.worker_settings_max_bytes}\\b`));
});
