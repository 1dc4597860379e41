import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { INITIAL_ROW_VALUE, resetLabData } from '../lib/supervisor/lab-reset';
import { refusedWith } from '../lib/testing/refused-with';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { closeLab, createPrivateLab, type LabRecord, labJoinKey } from './labs';
import { closePool, databaseUrl, newClient } from './pool';
import { appRoleName, databaseNameOf, workerRoleName } from './roles';

/*
 * Least privilege, enforced by PostgreSQL: connected AS THE WORKER ROLE, with the room's worker
 * password, a worker can do nothing but call its functions (0016_worker_functions.sql), and those
 * refuse anything but its own lab, its own name and run, and tokens granted for its lab's lease.
 * Whatever SQL it types: each refusal is PostgreSQL's, asserted by its SQLSTATE.
 */

const INSUFFICIENT_PRIVILEGE = '42501';
const NOT_JOINED = 'FL008';
const LAB_RESET = 'FL007';
const NOT_GRANTED_HERE = 'FL009';
const NOT_THIS_LABS_WRITE = 'FL011';
const TTL_MS = 10_000;

let worker: pg.Client;
let owner: pg.Client;
const opened: string[] = [];

before(async () => {
  worker = newClient(await testWorkerLineUrl());
  await worker.connect();
  owner = newClient();
  await owner.connect();
});

after(async () => {
  await worker.end();
  await owner.end();
  for (const id of opened) await closeLab(id);
  await closePool();
});

async function openLab(kind: 'fenced' | 'no-fencing' | 'token-as-text' = 'fenced'): Promise<LabRecord> {
  const lab = await createPrivateLab({
    kind,
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `worker-role-test-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  opened.push(lab.id);
  return lab;
}

type Me = { lab: string; name: string; instance: string };

async function join(lab: LabRecord, name: string, db: pg.Client = worker): Promise<Me> {
  const me = { lab: lab.id, name, instance: randomBytes(8).toString('hex') };
  const { rows } = await db.query<{ refusal: string | null; resource: string }>(
    'SELECT * FROM worker_join($1, $2, $3, $4, $5)',
    // A private lab is joined with its key, which its server hands the workers it starts.
    [me.lab, me.name, me.instance, JSON.stringify({ name }), await labJoinKey(lab.id)],
  );
  assert.equal(rows[0]?.refusal, null, `${name} joins ${lab.id}`);
  assert.equal(rows[0]?.resource, lab.resource, 'the join says which lease the lab has');
  return me;
}

async function acquire(me: Me, db: pg.Client = worker) {
  const { rows } = await db.query<{ outcome: string; lease_token: string }>(
    'SELECT * FROM worker_acquire_lease($1, $2, $3, $4)',
    [me.lab, me.name, me.instance, TTL_MS],
  );
  return { outcome: rows[0]?.outcome, token: Number(rows[0]?.lease_token) };
}

async function fencedWrite(me: Me, value: string, token: number, db: pg.Client = worker) {
  const { rows } = await db.query<{ outcome: string; stored_token: string | null }>(
    'SELECT * FROM worker_fenced_write($1, $2, $3, $4, $5)',
    [me.lab, me.name, me.instance, value, token],
  );
  return rows[0]?.outcome;
}

async function tablesWithAColumn(): Promise<Array<{ table: string; column: string }>> {
  const { rows } = await owner.query<{ table: string; column: string }>(
    `SELECT c.table_name AS table, min(c.column_name) AS column FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
      GROUP BY c.table_name ORDER BY c.table_name`,
  );
  return rows;
}

describe('connected as the worker role, PostgreSQL refuses everything but the worker functions', () => {
  test("the session is a person's worker line, a member of the worker role, which owns nothing and is no superuser", async () => {
    const { rows } = await worker.query<{ who: string; owns: number; superuser: boolean; member: boolean }>(
      `SELECT current_user AS who,
              (SELECT count(*)::int FROM pg_class WHERE relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user))
                + (SELECT count(*)::int FROM pg_proc WHERE proowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)) AS owns,
              (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
              pg_has_role(current_user, $1, 'USAGE') AS member`,
      [workerRoleName(databaseNameOf(databaseUrl()))],
    );
    assert.match(rows[0]?.who ?? '', /^fencing_line_/);
    assert.equal(rows[0]?.member, true, "it has the worker role's privileges");
    assert.equal(rows[0]?.owns, 0);
    assert.equal(rows[0]?.superuser, false);
  });

  test('SELECT, INSERT, UPDATE, DELETE and TRUNCATE on every table are refused', async () => {
    const tables = await tablesWithAColumn();
    for (const name of ['protected_rows', 'leases', 'events', 'labs', 'remote_workers', 'lease_grants']) {
      assert.ok(
        tables.some((t) => t.table === name),
        `${name} is among the tables tried`,
      );
    }
    for (const { table, column } of tables) {
      await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query(`SELECT * FROM "${table}" LIMIT 1`), `SELECT ${table}`);
      await refusedWith(
        INSUFFICIENT_PRIVILEGE,
        worker.query(`INSERT INTO "${table}" DEFAULT VALUES`),
        `INSERT ${table}`,
      );
      await refusedWith(
        INSUFFICIENT_PRIVILEGE,
        worker.query(`UPDATE "${table}" SET "${column}" = "${column}"`),
        `UPDATE ${table}`,
      );
      await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query(`DELETE FROM "${table}"`), `DELETE ${table}`);
      await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query(`TRUNCATE "${table}"`), `TRUNCATE ${table}`);
    }
    await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query("SELECT nextval('write_epoch')"), 'nextval(write_epoch)');
  });

  test('ALTER TABLE, DISABLE TRIGGER, session_replication_role and CREATE are refused', async () => {
    await refusedWith(
      INSUFFICIENT_PRIVILEGE,
      worker.query('ALTER TABLE protected_rows DISABLE TRIGGER USER'),
      'DISABLE TRIGGER',
    );
    await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query('ALTER TABLE labs ADD COLUMN x int'), 'ALTER TABLE');
    await refusedWith(
      INSUFFICIENT_PRIVILEGE,
      worker.query('SET session_replication_role = replica'),
      'SET session_replication_role',
    );
    await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query('CREATE TABLE public.mine (a int)'), 'CREATE TABLE');
    await refusedWith(
      INSUFFICIENT_PRIVILEGE,
      worker.query('CREATE FUNCTION public.mine() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$'),
      'CREATE FUNCTION',
    );
    await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query('CREATE TEMP TABLE mine (a int)'), 'CREATE TEMP TABLE');
  });

  test("the app's and the owner's functions are refused: only the worker's door is open", async () => {
    await refusedWith(
      INSUFFICIENT_PRIVILEGE,
      worker.query("SELECT * FROM fl_fenced_write(1, 'x', 1, 'me', 'fenced', NULL)"),
      'fl_fenced_write',
    );
    await refusedWith(INSUFFICIENT_PRIVILEGE, worker.query("SELECT lab_generation_bump('fenced')"), 'bump');
    await refusedWith(
      INSUFFICIENT_PRIVILEGE,
      worker.query("SELECT fl_reset_protected_row(1, 'x')"),
      'fl_reset_protected_row',
    );
  });
});

describe('the worker functions check the lab, the worker and the token', () => {
  test('a stale token is rejected; a token granted for another lab is refused, however high', async () => {
    const lab = await openLab();
    const other = await openLab();
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const first = await acquire(a);
    assert.equal(first.outcome, 'granted');
    assert.equal(await fencedWrite(a, 'A-1', first.token), 'accepted');
    // B takes over once A's lease is gone (released here, rather than waited out).
    await worker.query('SELECT * FROM worker_release_lease($1, $2, $3, $4)', [a.lab, a.name, a.instance, first.token]);
    const second = await acquire(b);
    assert.ok(second.token > first.token);
    assert.equal(await fencedWrite(b, 'B-1', second.token), 'accepted');
    assert.equal(await fencedWrite(a, 'A-late', first.token), 'stale', "A's late write with its old token");

    const elsewhere = await acquire(await join(other, 'Far'));
    assert.ok(elsewhere.token > second.token, "the other lab's token is newer than this lab's row");
    await refusedWith(NOT_GRANTED_HERE, fencedWrite(b, 'B-forged', elsewhere.token), "another lab's token");
    const { rows } = await owner.query('SELECT value, last_token FROM protected_rows WHERE id = $1', [lab.rowId]);
    assert.deepEqual(rows[0], { value: 'B-1', last_token: String(second.token) });
  });

  test("another worker's name or instance, and a lab it did not join, are refused", async () => {
    const lab = await openLab();
    const other = await openLab();
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    await refusedWith(NOT_JOINED, acquire({ ...a, name: 'B' }), "B's name with A's instance");
    await refusedWith(NOT_JOINED, acquire({ ...b, instance: a.instance }), "A's instance under B's name");
    await refusedWith(NOT_JOINED, acquire({ ...a, instance: randomBytes(8).toString('hex') }), 'a made-up instance');
    await refusedWith(NOT_JOINED, acquire({ ...a, lab: other.id }), 'a lab it did not join');
    await refusedWith(
      NOT_JOINED,
      worker.query('SELECT worker_record_event($1, $2, $3, $4, NULL, $5)', [
        other.id,
        a.name,
        a.instance,
        'write_sent',
        '{}',
      ]),
      "an event in another lab's history",
    );
    // A later run under A's name takes it over: the earlier run's instance is refused from then on.
    await worker.query('SELECT worker_mark_stopped($1, $2, $3)', [a.lab, a.name, a.instance]);
    const again = await join(lab, 'A');
    await refusedWith(NOT_JOINED, acquire(a), 'a stopped run');
    assert.equal((await acquire(again)).outcome, 'granted');
  });

  test('a worker records only its own kinds of events, under its own name', async () => {
    const lab = await openLab();
    const a = await join(lab, 'A');
    await worker.query('SELECT worker_record_event($1, $2, $3, $4, NULL, $5)', [
      a.lab,
      a.name,
      a.instance,
      'write_sent',
      '{"value":"A-1"}',
    ]);
    for (const kind of ['lease_acquired', 'lease_expired', 'write_accepted', 'write_rejected', 'lab_closed']) {
      await refusedWith(
        INSUFFICIENT_PRIVILEGE,
        worker.query('SELECT worker_record_event($1, $2, $3, $4, 1, $5)', [a.lab, a.name, a.instance, kind, '{}']),
        `a forged ${kind}`,
      );
    }
    const { rows } = await owner.query('SELECT actor, kind, generation FROM events WHERE lab = $1', [lab.id]);
    assert.deepEqual(rows, [{ actor: 'A', kind: 'write_sent', generation: '1' }]);
  });

  test('a lab reset since the worker joined refuses it', async () => {
    const lab = await openLab();
    const a = await join(lab, 'A');
    const granted = await acquire(a);
    assert.equal(granted.outcome, 'granted');
    await resetLabData(lab);
    await refusedWith(LAB_RESET, acquire(a), 'acquire after the reset');
    await refusedWith(LAB_RESET, fencedWrite(a, 'A-late', granted.token), 'write after the reset');
    const { rows } = await worker.query<{ stop: string }>(
      'SELECT worker_beat($1, $2, $3, $4, NULL, NULL, false) AS stop',
      [a.lab, a.name, a.instance, 'holding'],
    );
    assert.equal(rows[0]?.stop, 'reset', 'its heartbeat tells it to stop');
  });

  test('a broken lab still shows its mistake, with its own write only, on its own row', async () => {
    const lab = await openLab('no-fencing');
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const old = await acquire(a);
    await worker.query('SELECT * FROM worker_release_lease($1, $2, $3, $4)', [a.lab, a.name, a.instance, old.token]);
    const newer = await acquire(b);
    const write = (me: Me, mode: string, value: string, token: number) =>
      worker.query<{ outcome: string }>('SELECT * FROM worker_broken_write($1, $2, $3, $4, $5, $6)', [
        me.lab,
        me.name,
        me.instance,
        mode,
        value,
        token,
      ]);
    assert.equal((await write(b, 'plain', 'B-1', newer.token)).rows[0]?.outcome, 'accepted');
    assert.equal((await write(a, 'plain', 'A-late', old.token)).rows[0]?.outcome, 'accepted', 'the lost update');
    await refusedWith(NOT_THIS_LABS_WRITE, write(a, 'text', 'A-x', old.token), "another lab's mistake");
    await refusedWith(NOT_THIS_LABS_WRITE, fencedWrite(a, 'A-x', old.token), 'the fenced write');
  });
});

describe('the app role cannot write the rows either', () => {
  test('a direct UPDATE of protected_rows or unguarded_rows as the app role is refused', async () => {
    const app = newClient();
    await app.connect();
    try {
      await app.query(`SET ROLE "${appRoleName(databaseNameOf(databaseUrl()))}"`);
      await refusedWith(
        INSUFFICIENT_PRIVILEGE,
        app.query("UPDATE protected_rows SET value = 'x', last_token = last_token"),
        'UPDATE protected_rows',
      );
      await refusedWith(INSUFFICIENT_PRIVILEGE, app.query("UPDATE unguarded_rows SET value = 'x'"), 'UPDATE unguarded');
      await refusedWith(INSUFFICIENT_PRIVILEGE, app.query('UPDATE leases SET token = token'), 'UPDATE leases');
      await refusedWith(
        INSUFFICIENT_PRIVILEGE,
        app.query('ALTER TABLE protected_rows DISABLE TRIGGER USER'),
        'DISABLE TRIGGER',
      );
      await refusedWith(INSUFFICIENT_PRIVILEGE, app.query('SELECT * FROM worker_credentials'), 'the password');
    } finally {
      await app.end();
    }
  });
});
