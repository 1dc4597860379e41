import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { isFencingError } from '../lib/model/core/errors';
import { WORKER_BOUNDS } from '../lib/model/core/input-bounds';
import { type Me, openPrivateLabOnLine } from '../lib/testing/private-lab-line';
import { refusedWith } from '../lib/testing/refused-with';
import { appendEvent } from './events';
import { closePool } from './pool';

/*
 * Issue 33 item 7: holding the worker line, a trainee wrote without bound. `pg_logical_emit_message`
 * (3 x 100 MB grew the WAL from 32 to 320 MB), and worker_record_event, 2,903 events in 5 s from one
 * connection at about 19 kB of detail each. The built-ins are the worker role's no longer
 * (fl_revoke_worker_volume, at every start); a worker's own events are limited in rate per name per
 * lab and in size, by the database (fl_take_event_budget, fl_bound).
 */

const INSUFFICIENT_PRIVILEGE = '42501';
const TOO_MANY_EVENTS = 'FL012';

let at: Awaited<ReturnType<typeof openPrivateLabOnLine>>;
let worker: pg.Client;
let owner: pg.Client;
let lab: string;

before(async () => {
  at = await openPrivateLabOnLine('volume');
  ({ worker, owner, lab } = at);
});
after(async () => {
  await at.close();
  await closePool();
});

const join = (name: string): Promise<Me> => at.join(name);

const record = (me: Me, detail: unknown = { value: `${me.name}-1` }) =>
  worker.query('SELECT worker_record_event($1, $2, $3, $4, NULL, $5)', [
    me.lab,
    me.name,
    me.instance,
    'write_sent',
    JSON.stringify(detail),
  ]);

test('pg_logical_emit_message, both overloads, is refused to the worker role', async () => {
  await refusedWith(
    INSUFFICIENT_PRIVILEGE,
    worker.query("SELECT pg_logical_emit_message(false, 'x', repeat('y', 1000))"),
    'text',
  );
  await refusedWith(
    INSUFFICIENT_PRIVILEGE,
    worker.query("SELECT pg_logical_emit_message(true, 'x', '\\x00'::bytea)"),
    'bytea',
  );
  await refusedWith(
    INSUFFICIENT_PRIVILEGE,
    worker.query("SELECT pg_logical_emit_message(true, 'x', 'y', true)"),
    'with flush',
  );
});

test('a large object and a temporary table are refused to the worker role', async () => {
  await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query("SELECT lo_from_bytea(0, 'x'::bytea)"), 'lo_from_bytea');
  await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query('SELECT lo_create(0)'), 'lo_create');
  await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query('SELECT lo_creat(-1)'), 'lo_creat');
  await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query("SELECT lo_import('/etc/hostname')"), 'lo_import');
  await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query('CREATE TEMP TABLE junk (x text)'), 'a temporary table');
  await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query("SELECT pg_notify('fencing_events', '1')"), 'pg_notify');
});

test('taking them again at the next start changes nothing and leaves the worker role none', async () => {
  const { rows } = await owner.query<{ kept: string[] }>('SELECT fl_revoke_worker_volume() AS kept');
  assert.deepEqual(rows[0]?.kept, []);
  // The app role keeps pg_notify: its own statements and the triggers it fires notify.
  const { rows: app } = await owner.query<{ may: boolean }>(
    "SELECT has_function_privilege(fencing_lab_role('app'), 'pg_notify(text, text)', 'EXECUTE') AS may",
  );
  assert.equal(app[0]?.may, true);
});

test("an event's detail is bounded well under today's 20000 bytes, with room for ours", async () => {
  const me = await join('Detail');
  await refusedWith('22023', record(me, { blob: 'y'.repeat(19_000) }), 'a 19 kB detail');
  await assert.rejects(record(me, { blob: 'y'.repeat(WORKER_BOUNDS.event_detail_max_bytes) }), /at most 4000 bytes/);
  // The largest ours send: a start's, its settings at the most worker_join keeps, its id and its server.
  const settings = { name: 'Detail', blob: 'y'.repeat(WORKER_BOUNDS.worker_settings_max_bytes - 40) };
  const server = { pid: 123456, startTicks: '1234567890', bootId: randomBytes(16).toString('hex') };
  const start = {
    workerId: 'w12',
    ...settings,
    server,
    reason: 'the app server that ran it stopped, and the process with it',
  };
  await record(me, start);
});

/**
 * At most what a bucket of `burst` refilled at `rate` a second can have let through in `seconds` (the
 * loop's time on this machine's clock, which spans the database's): a slow machine lets more through,
 * never more than this, and some are always refused.
 */
function assertThrottled(letThrough: number, tried: number, burst: number, rate: number, seconds: number): void {
  const most = Math.floor(burst + rate * seconds) + 1;
  assert.ok(letThrough <= most, `${letThrough} of ${tried} let through in ${seconds.toFixed(2)} s: at most ${most}`);
  assert.ok(letThrough < tried, `${tried - letThrough} of ${tried} refused`);
}

test('an event flood is throttled per worker: most of 500 refused, and the lab still works for another', async () => {
  const flooder = await join('Flood');
  let refused = 0;
  let recorded = 0;
  const started = performance.now();
  for (let n = 0; n < 500; n++) {
    try {
      await record(flooder);
      recorded += 1;
    } catch (error) {
      assert.equal((error as { code?: string }).code, TOO_MANY_EVENTS, (error as Error).message);
      assert.match((error as Error).message, /a worker records at most 20 events a second \(40 at once\)/);
      refused += 1;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  assertThrottled(recorded, 500, WORKER_BOUNDS.worker_event_burst, WORKER_BOUNDS.worker_events_per_second, seconds);
  assert.equal(recorded + refused, 500);
  assert.ok(recorded >= WORKER_BOUNDS.worker_event_burst, `${recorded} recorded`);
  // Another worker in the same lab records, and takes and writes its lease, as if nothing happened.
  const other = await join('Other');
  await record(other);
  const { rows } = await worker.query<{ outcome: string; lease_token: string }>(
    'SELECT * FROM worker_acquire_lease($1, $2, $3, $4)',
    [other.lab, other.name, other.instance, 5_000],
  );
  assert.equal(rows[0]?.outcome, 'granted');
  const { rows: written } = await worker.query<{ outcome: string }>(
    'SELECT * FROM worker_fenced_write($1, $2, $3, $4, $5)',
    [other.lab, other.name, other.instance, 'Other-1', rows[0]?.lease_token],
  );
  assert.equal(written[0]?.outcome, 'accepted');
  await worker.query('SELECT * FROM worker_release_lease($1, $2, $3, $4)', [
    other.lab,
    other.name,
    other.instance,
    rows[0]?.lease_token,
  ]);
  // Refused events were not recorded.
  const { rows: counted } = await owner.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM events WHERE lab = $1 AND actor = 'Flood'",
    [lab],
  );
  assert.equal(counted[0]?.n, recorded);
});

test('a worker keeps its pace under the limit: 20 events a second never refused; a refusal reaches it as rate_limited', async () => {
  const me = await join('Steady');
  const started = Date.now();
  for (let n = 0; n < 3 * WORKER_BOUNDS.worker_events_per_second; n++) {
    // One write_sent per write at the Start form's fastest (every 100 ms), and as many again.
    await record(me);
    await new Promise((resolve) => setTimeout(resolve, 1_000 / WORKER_BOUNDS.worker_events_per_second));
  }
  assert.ok(Date.now() - started >= 3_000);
  // Drained on purpose: the worker's own client sees the refusal as a FencingError it goes on from.
  const drained = await join('Drained');
  let error: unknown;
  for (let n = 0; n < 100 && !error; n++) {
    await appendEvent(
      worker,
      { lab, actor: drained.name, kind: 'write_sent', detail: { value: 'x' } },
      { as: drained },
    ).catch((e: unknown) => {
      error = e;
    });
  }
  assert.ok(isFencingError(error, 'rate_limited'), String(error));
});

test('a renewal in a tight loop is throttled too (each records an event), and the lab still works for another', async () => {
  const holder = await join('Renewer');
  const { rows } = await worker.query<{ outcome: string; lease_token: string }>(
    'SELECT * FROM worker_acquire_lease($1, $2, $3, $4)',
    [holder.lab, holder.name, holder.instance, 5_000],
  );
  assert.equal(rows[0]?.outcome, 'granted');
  const token = rows[0]?.lease_token;
  let refused = 0;
  const started = performance.now();
  for (let n = 0; n < 500; n++) {
    await worker
      .query('SELECT * FROM worker_renew_lease($1, $2, $3, $4, $5)', [
        holder.lab,
        holder.name,
        holder.instance,
        token,
        5_000,
      ])
      .catch((error: { code?: string; message?: string }) => {
        assert.equal(error.code, TOO_MANY_EVENTS, error.message);
        assert.match(error.message ?? '', /at most 50 times a second \(100 at once\)/);
        refused += 1;
      });
  }
  const seconds = (performance.now() - started) / 1000;
  assertThrottled(500 - refused, 500, WORKER_BOUNDS.worker_call_burst, WORKER_BOUNDS.worker_calls_per_second, seconds);
  const { rows: renewals } = await owner.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM events WHERE lab = $1 AND actor = 'Renewer' AND kind = 'lease_renewed'",
    [lab],
  );
  assert.equal(renewals[0]?.n, 500 - refused, 'a refused renewal records nothing');
  // A tenth of a second refills a few: the holder lets its lease go.
  await new Promise((resolve) => setTimeout(resolve, 100));
  await worker.query('SELECT * FROM worker_release_lease($1, $2, $3, $4)', [
    holder.lab,
    holder.name,
    holder.instance,
    token,
  ]);
  const other = await join('Bystander');
  const { rows: granted } = await worker.query<{ outcome: string }>(
    'SELECT * FROM worker_acquire_lease($1, $2, $3, $4)',
    [other.lab, other.name, other.instance, 5_000],
  );
  assert.equal(granted[0]?.outcome, 'granted');
});
