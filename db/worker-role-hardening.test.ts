import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { sharedLab } from '../lib/model/lab/lab-instance';
import { INITIAL_ROW_VALUE, resetLabData } from '../lib/supervisor/lab-reset';
import { endListenSessions } from '../lib/testing/end-listen-sessions';
import { refusedWith } from '../lib/testing/refused-with';
import { openLabFeed } from '../lib/testing/sse-client';
import { waitFor } from '../lib/testing/wait';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { appendEvent } from './events';
import { setRemoteWorkersOpen } from './lab-doors';
import { closeLab, createPrivateLab, labJoinKey } from './labs';
import { closePool, getPool, newClient } from './pool';
import { WORKER_LINE_CONNECTIONS } from './worker-lines';

/*
 * What a security review of the worker role (issue 11) found a trainee holding the room's worker line
 * could still do, connected as the worker role, each written as the test that now holds: what the
 * review did is refused, or does no harm (db/migrations/0020_worker_role_hardening.sql).
 */

const INSUFFICIENT_PRIVILEGE = '42501';

const clients: pg.Client[] = [];
const opened: string[] = [];

/** A session of a person's worker line: three to a line, a line holds four (WORKER_LINE_CONNECTIONS). */
async function asWorker(): Promise<pg.Client> {
  const client = newClient(await testWorkerLineUrl({ who: `hardening-${Math.floor(clients.length / 3)}` }));
  await client.connect();
  clients.push(client);
  return client;
}

/** A session of the line of the person `who`. */
async function asLine(who: string): Promise<pg.Client> {
  const client = newClient(await testWorkerLineUrl({ who }));
  await client.connect();
  clients.push(client);
  return client;
}

before(async () => {
  // The room joins a shared lab only while its trainer opens it to remote workers (issue 23).
  await setRemoteWorkersOpen('fenced', true);
});

after(async () => {
  await setRemoteWorkersOpen('fenced', false);
  for (const client of clients) await client.end().catch(() => undefined);
  for (const id of opened) await closeLab(id).catch(() => undefined);
  await endListenSessions();
  await closePool();
});

type Me = { lab: string; name: string; instance: string };

async function join(
  db: pg.Client,
  lab: string,
  name: string,
  settings: unknown = { name },
  joinKey: string | null = null,
): Promise<Me> {
  const me = { lab, name, instance: randomBytes(12).toString('hex') };
  const { rows } = await db.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
    lab,
    name,
    me.instance,
    JSON.stringify(settings),
    joinKey,
  ]);
  assert.equal(rows[0]?.refusal, null, `${name} joins ${lab}`);
  return me;
}

/** A private lab of its own for a test (closed after), and its join key. */
async function privateLab(kind: 'fenced' | 'no-fencing', tag: string) {
  const lab = await createPrivateLab({
    kind,
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `${tag}-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 12,
    opensWindowMs: 1,
  });
  opened.push(lab.id);
  return { lab, key: (await labJoinKey(lab.id)) ?? null };
}

describe('what a review found the worker role could do, now refused', () => {
  test("a private lab's id (which notifications may carry) is no way in: joining it takes its key", async () => {
    const db = await asWorker();
    const lab = await createPrivateLab({
      kind: 'fenced',
      ownerHash: randomBytes(32).toString('hex'),
      openedFrom: `hardening-${randomBytes(4).toString('hex')}`,
      initialValue: INITIAL_ROW_VALUE,
      opensPerAddress: 12,
      opensWindowMs: 1,
    });
    opened.push(lab.id);
    const refusalWith = async (key: string | null) => {
      const { rows } = await db.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
        lab.id,
        'Mallory',
        randomBytes(12).toString('hex'),
        JSON.stringify({ name: 'Mallory' }),
        key,
      ]);
      return rows[0]?.refusal;
    };
    assert.equal(await refusalWith(null), 'no_lab', 'no key: as if there were no such lab');
    assert.equal(await refusalWith('0'.repeat(64)), 'no_lab', 'a wrong key');
    assert.equal(await refusalWith((await labJoinKey(lab.id)) ?? ''), null, 'its own key lets a worker in');
  });

  test("a worker holding no lease may not write the fenced row with another worker's token", async () => {
    const db = await asWorker();
    await resetLabData(sharedLab('fenced'));
    const alice = await join(db, 'fenced', `Alice${randomBytes(3).toString('hex')}`);
    const bob = await join(db, 'fenced', `Bob${randomBytes(3).toString('hex')}`);
    const { rows: granted } = await db.query<{ lease_token: string }>(
      'SELECT * FROM worker_acquire_lease($1, $2, $3, $4)',
      [alice.lab, alice.name, alice.instance, 60_000],
    );
    const aliceToken = Number(granted[0]?.lease_token);
    const attempt = db
      .query<{ outcome: string }>('SELECT * FROM worker_fenced_write($1, $2, $3, $4, $5)', [
        bob.lab,
        bob.name,
        bob.instance,
        "Bob, with Alice's token",
        aliceToken,
      ])
      .then(
        ({ rows }) => rows[0]?.outcome,
        () => 'refused',
      );
    assert.notEqual(await attempt, 'accepted', "a token granted to Alice is not Bob's to write with");
    // Alice's 60 s lease would hold the shared fenced lab for the tests after this one (a scenario
    // that finds it held says the lab is in use, and stops).
    await db.query('SELECT * FROM worker_release_lease($1, $2, $3, $4)', [
      alice.lab,
      alice.name,
      alice.instance,
      aliceToken,
    ]);
  });

  test('the worker role may not take the advisory locks the app waits on (events, private labs, migrations)', async () => {
    const db = await asWorker();
    for (const sql of [
      "SELECT pg_advisory_lock(hashtext('fencing_lab.events'), hashtext('fenced'))",
      "SELECT pg_advisory_lock(hashtext('fencing_lab.private_labs'))",
      "SELECT pg_advisory_lock(hashtext('fencing_lab.migrate'))",
    ]) {
      await refusedWith(INSUFFICIENT_PRIVILEGE, db.query(sql), sql);
    }
  });

  // Found by a probe (12-08): the lock was taken before the worker was checked, and a session-level
  // lock outlives the error after it, so a line filled the cluster's shared lock table, 600 a session.
  test("a line holds no critical-window lock for a lane it is not, and one lane's at most per session", async () => {
    const db = await asWorker();
    const advisoryLocks = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory' AND granted",
          )
        ).rows[0]?.n,
      );
    for (let i = 0; i < 5; i++) {
      await refusedWith(
        'FL008',
        db.query('SELECT worker_hold_critical_window($1, $2, $3)', ['no-such-lab', 'nobody', `z-${i}`]),
        'a lane no worker of this session is',
      );
    }
    assert.equal(await advisoryLocks(), 0, 'no lock left behind by the refusals');

    const { lab, key } = await privateLab('fenced', 'window');
    const a = await join(db, lab.id, 'A', { name: 'A' }, key);
    const b = await join(db, lab.id, 'B', { name: 'B' }, key);
    const hold = (me: Me) => db.query('SELECT worker_hold_critical_window($1, $2, $3)', [me.lab, me.name, me.instance]);
    await hold(a);
    await hold(a); // taken once, however often it is asked
    assert.equal(await advisoryLocks(), 1);
    await refusedWith(INSUFFICIENT_PRIVILEGE, hold(b), "a second lane's window in the same session");
    assert.equal(await advisoryLocks(), 1);
    await db.query('SELECT worker_release_critical_window($1, $2, $3)', [a.lab, a.name, a.instance]);
    assert.equal(await advisoryLocks(), 0);
    await hold(b); // once A's is let go, B's may be held
    assert.equal(await advisoryLocks(), 1);
    await db.query('SELECT worker_release_critical_window($1, $2, $3)', [b.lab, b.name, b.instance]);
  });

  test('the worker role may not store large objects (disk)', async () => {
    const db = await asWorker();
    await refusedWith(INSUFFICIENT_PRIVILEGE, db.query("SELECT lo_from_bytea(0, '\\x00'::bytea)"), 'lo_from_bytea');
    await refusedWith(INSUFFICIENT_PRIVILEGE, db.query('SELECT lo_create(0)'), 'lo_create');
  });

  test("the worker role may not end other workers' sessions", async () => {
    const victim = await asWorker();
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const db = await asWorker();
    await refusedWith(
      INSUFFICIENT_PRIVILEGE,
      db.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]),
      "pg_terminate_backend of another worker's session",
    );
  });

  test("a person's worker line may not open every connection slot: it holds a few, the app keeps the rest", async () => {
    const url = await testWorkerLineUrl({ who: 'hardening-slots' });
    for (let n = 0; n < WORKER_LINE_CONNECTIONS; n++) {
      const client = newClient(url);
      await client.connect();
      clients.push(client);
    }
    const extra = newClient(url);
    await assert.rejects(extra.connect(), /too many connections for role/);
    await extra.end().catch(() => undefined);
    assert.equal((await getPool().query('SELECT 1 AS one')).rows[0]?.one, 1, 'the app still connects');
  });

  test("a worker's forged NOTIFY of a reset does not wipe the viewers' history of a lab that was never reset", async () => {
    const LAB = 'read-check-write';
    await resetLabData(sharedLab(LAB));
    for (let n = 0; n < 3; n++) {
      await appendEvent(getPool(), { lab: LAB, actor: 'T', kind: 'write_sent', detail: { value: `v${n}` } });
    }
    const viewer = openLabFeed(LAB);
    try {
      await waitFor(() => viewer.received.some((m) => m.event === 'caught-up'), 'caught-up');
      const db = await asWorker();
      await db.query(`NOTIFY fencing_events, '{"lab":"${LAB}","reset":true,"upTo":9007199254740991}'`);
      await appendEvent(getPool(), { lab: LAB, actor: 'T', kind: 'write_sent', detail: { value: 'after' } });
      const { rows } = await getPool().query<{ id: string }>('SELECT id FROM events WHERE lab = $1 ORDER BY id', [LAB]);
      const inDatabase = rows.map((row) => Number(row.id));
      const last = inDatabase.at(-1) as number;
      await waitFor(() => viewer.received.some((m) => m.event === 'lab-event' && m.id === last), 'the last event');
      assert.deepEqual(viewer.eventIds(), inDatabase, 'the viewer holds the history the database holds');
    } finally {
      await viewer.close();
    }
  });

  test('worker_join refuses settings too large to show in every snapshot', async () => {
    const db = await asWorker();
    const huge = { name: 'x', blob: 'y'.repeat(3 * 1024 * 1024) };
    const attempt = db
      .query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4)', [
        'no-fencing',
        `Huge${randomBytes(3).toString('hex')}`,
        randomBytes(12).toString('hex'),
        JSON.stringify(huge),
      ])
      .then(
        ({ rows }) => (rows[0]?.refusal === null ? 'joined' : 'refused'),
        () => 'refused',
      );
    assert.equal(await attempt, 'refused', 'a 3 MB settings object is refused');
  });

  // A shared lab takes fewer remote workers still (db/remote-room-joins.test.ts).
  test('a worker started by hand cannot plant lanes without end: a run of a lab takes at most 16 workers', async () => {
    const db = await asWorker();
    const { lab, key } = await privateLab('no-fencing', 'lanes');
    // A line joins a lab under at most 8 names: two lines plant the 16, a third is refused for the lab's sake.
    const lines = [db, await asLine('hardening-lanes-2'), await asLine('hardening-lanes-3')];
    for (let n = 0; n < 16; n++) {
      await join(lines[Math.floor(n / 8)] as pg.Client, lab.id, `Lane${n}`, { name: `Lane${n}` }, key);
    }
    const { rows } = await (lines[2] as pg.Client).query<{ refusal: string | null }>(
      'SELECT * FROM worker_join($1, $2, $3, $4, $5)',
      [lab.id, 'Lane16', randomBytes(12).toString('hex'), JSON.stringify({ name: 'Lane16' }), key],
    );
    assert.equal(rows[0]?.refusal, 'full');
  });
});
