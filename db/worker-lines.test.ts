import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { WORKER_BOUNDS } from '../lib/model/core/input-bounds';
import { sharedLab } from '../lib/model/lab/lab-instance';
import { resetLabData } from '../lib/supervisor/lab-reset';
import { backendPid } from '../lib/testing/lock-waits';
import { waitFor } from '../lib/testing/wait';
import { setRemoteWorkersOpen } from './lab-doors';
import { closeLab, createPrivateLab } from './labs';
import { closePool, databaseUrl, getPool, newClient } from './pool';
import { workerRoleName } from './role-names';
import { databaseNameOf } from './roles';
import {
  endBlockingWorkerSessions,
  issueWorkerLine,
  restoreChangedWorkerLines,
  WORKER_LINE_CONNECTIONS,
  WORKER_LINES_PER_ADDRESS,
  workerLineUrl,
} from './worker-lines';

/*
 * Issue 33, item 2: one role shared by the room made what any role may do to itself everyone's
 * problem. `ALTER ROLE CURRENT_USER SET default_transaction_read_only = on` made every other remote
 * worker fail, `RESET ALL` removed the role's limits, `PASSWORD '…'` locked the room out, and all
 * three survived a restart. Now each person gets a worker line of their own: what one does to their
 * own role reaches no one else, and their own line is refused in words, then put back.
 */

const LAB = 'no-fencing';
const clients: pg.Client[] = [];

const holderOf = (who: string) => createHash('sha256').update(`worker-lines.test:${who}`).digest('hex');

async function lineOf(who: string, lab = LAB) {
  const n = createHash('md5').update(who).digest();
  return issueWorkerLine({ holder: holderOf(who), lab, address: `10.${n[0]}.${n[1]}.${n[2]}` });
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  clients.push(client);
  return client;
}

async function join(db: pg.Client, name: string): Promise<string | null> {
  const { rows } = await db.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4)', [
    LAB,
    name,
    randomBytes(12).toString('hex'),
    JSON.stringify({ name }),
  ]);
  return rows[0]?.refusal ?? null;
}

before(async () => {
  await setRemoteWorkersOpen(LAB, true);
});
after(async () => {
  await setRemoteWorkersOpen(LAB, false);
  // Its workers joined the shared lab from this machine's address: a new run of the lab leaves the
  // next file the address's share of remote workers (at most 4 live ones in the shared labs).
  await resetLabData(sharedLab(LAB));
  for (const client of clients) await client.end().catch(() => undefined);
  await closePool();
});

test('the worker role is a group with no login: the room has no shared password', async () => {
  const { rows } = await getPool().query<{ rolcanlogin: boolean }>(
    'SELECT rolcanlogin FROM pg_roles WHERE rolname = $1',
    [workerRoleName(databaseNameOf(databaseUrl()))],
  );
  assert.equal(rows[0]?.rolcanlogin, false);
});

test("one person's ALTER ROLE … SET, RESET ALL and PASSWORD leave another person's join working", async () => {
  const mallory = await lineOf('mallory');
  const alice = await lineOf('alice');
  assert.notEqual(mallory.role, alice.role, 'two people, two roles');
  const m = await connect(workerLineUrl(databaseUrl(), mallory));
  await m.query('ALTER ROLE CURRENT_USER SET default_transaction_read_only = on');
  await m.query('ALTER ROLE CURRENT_USER RESET ALL');
  await m.query('ALTER ROLE CURRENT_USER SET default_transaction_read_only = on');
  await m.query("ALTER ROLE CURRENT_USER PASSWORD 'mallory-chose-this-one'");

  const a = await connect(workerLineUrl(databaseUrl(), alice));
  assert.equal(await join(a, `Alice${randomBytes(2).toString('hex')}`), null, "alice's worker joins");
  const shown = async (setting: string) => (await a.query(`SHOW ${setting}`)).rows[0]?.[setting];
  assert.equal(await shown('statement_timeout'), '2s', "alice's limits are hers, as issued");
  assert.equal(await shown('default_transaction_read_only'), 'off');
});

test('a line whose settings were changed is refused in words, then put back as issued', async () => {
  const line = await lineOf('tamperer');
  const own = await connect(workerLineUrl(databaseUrl(), line));
  await own.query('ALTER ROLE CURRENT_USER SET statement_timeout = 0');
  await own.query(
    `ALTER ROLE CURRENT_USER IN DATABASE ${JSON.stringify(databaseNameOf(databaseUrl()))} SET work_mem = '1GB'`,
  );
  const again = await connect(workerLineUrl(databaseUrl(), line));
  await assert.rejects(join(again, 'Tamperer'), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'FL031');
    assert.match(error.message, /this worker line's settings were changed \(set: .*statement_timeout=0.*work_mem=1GB/);
    return true;
  });
  assert.ok((await restoreChangedWorkerLines()) >= 1, 'the watchdog puts it back');
  const restored = await connect(workerLineUrl(databaseUrl(), line));
  assert.equal(await join(restored, `Tamperer${randomBytes(2).toString('hex')}`), null, 'it joins again');
  assert.equal((await restored.query('SHOW work_mem')).rows[0]?.work_mem, '4MB');
});

test('a person who changed their own password locked out only themselves; asking again gives a new one', async () => {
  const first = await lineOf('forgetful');
  const db = await connect(workerLineUrl(databaseUrl(), first));
  await db.query("ALTER ROLE CURRENT_USER PASSWORD 'something-else-entirely'");
  const locked = newClient(workerLineUrl(databaseUrl(), first));
  await assert.rejects(locked.connect(), /password authentication failed/);
  await locked.end().catch(() => undefined);
  const again = await lineOf('forgetful');
  assert.equal(again.role, first.role, 'the same line');
  assert.notEqual(again.password, first.password);
  await connect(workerLineUrl(databaseUrl(), again));
});

test(`a line holds at most ${WORKER_LINE_CONNECTIONS} connections, and may not act as the worker group`, async () => {
  const line = await lineOf('greedy');
  const url = workerLineUrl(databaseUrl(), line);
  const held: pg.Client[] = [];
  for (let n = 0; n < WORKER_LINE_CONNECTIONS; n++) held.push(await connect(url));
  const extra = newClient(url);
  await assert.rejects(extra.connect(), /too many connections for role/);
  await extra.end().catch(() => undefined);
  const group = workerRoleName(databaseNameOf(databaseUrl()));
  const version = Number((await getPool().query('SHOW server_version_num')).rows[0]?.server_version_num);
  if (version >= 160000) {
    await assert.rejects((held[0] as pg.Client).query(`SET ROLE "${group}"`), /permission denied to set role/);
  }
});

test("a closed lab's lines are taken back at the next issue", async () => {
  const lab = await createPrivateLab({
    kind: 'fenced',
    ownerHash: holderOf('closer'),
    openedFrom: `closer-${randomBytes(3).toString('hex')}`,
    initialValue: 'v0',
    opensPerAddress: 12,
    opensWindowMs: 1,
  });
  const line = await lineOf('closer', lab.id);
  await closeLab(lab.id);
  await lineOf('someone-after-closer');
  const { rows } = await getPool().query('SELECT 1 FROM pg_roles WHERE rolname = $1', [line.role]);
  assert.equal(rows.length, 0, 'the role is gone');
});

test('a line that granted default privileges for itself is still taken back, and issuing goes on for everyone', async () => {
  const lab = await createPrivateLab({
    kind: 'fenced',
    ownerHash: holderOf('poisoner'),
    openedFrom: `poisoner-${randomBytes(3).toString('hex')}`,
    initialValue: 'v0',
    opensPerAddress: 12,
    opensWindowMs: 1,
  });
  const line = await lineOf('poisoner', lab.id);
  const db = await connect(workerLineUrl(databaseUrl(), line));
  // Any role may do this for itself; DROP ROLE alone then refuses the role.
  await db.query('ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO PUBLIC');
  await closeLab(lab.id);
  const next = await lineOf('after-poisoner');
  assert.match(next.role, /^fencing_line_/, 'the next person still gets a line');
  const { rows } = await getPool().query('SELECT 1 FROM pg_roles WHERE rolname = $1', [line.role]);
  assert.equal(rows.length, 0, "the poisoner's line is gone");
});

test("a line asked for again from another address counts in that address's share", async () => {
  const address = `10.99.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
  const labOf = (n: number) => (n % 2 ? 'fenced' : LAB);
  for (let n = 0; n < WORKER_LINES_PER_ADDRESS; n++) {
    await issueWorkerLine({ holder: holderOf(`share-${address}-${n}`), lab: labOf(n), address });
  }
  const elsewhere = { holder: holderOf(`share-${address}-elsewhere`), lab: LAB };
  await issueWorkerLine({ ...elsewhere, address: '10.98.0.1' });
  await assert.rejects(issueWorkerLine({ ...elsewhere, address }), /this address already holds 8 worker lines/);
});

test("a full address takes back its oldest line that runs no worker, once 10 minutes old, the asker's own first; never a busy one, never another address's", async () => {
  // Before, a line was taken back only when its lab closed: a trainee who joined a ninth shared lab
  // from one laptop was refused for good (found by e2e/your-client-shared.spec.ts's runs).
  const owner = newClient(databaseUrl());
  await owner.connect();
  const address = `10.97.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
  const issued: string[] = [];
  let stop: (() => Promise<unknown>) | undefined;
  try {
    for (let n = 0; n < WORKER_LINES_PER_ADDRESS; n++) {
      const line = await issueWorkerLine({ holder: holderOf(`own-${address}-${n}`), lab: LAB, address });
      issued.push(line.role);
    }
    const ninth = { holder: holderOf(`own-${address}-ninth`), lab: LAB, address };
    // All eight fresh: refused, in words that say when to ask again.
    await assert.rejects(
      issueWorkerLine(ninth),
      /this address already holds 8 worker lines, .*ask again in a few minutes/,
    );
    const age = (roles: string[]) =>
      owner.query(
        "UPDATE worker_lines SET issued_at = clock_timestamp() - interval '11 minutes' WHERE role_name = ANY ($1)",
        [roles],
      );
    const roles = async (names: string[]) =>
      (
        await owner.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname = ANY ($1) ORDER BY 1', [
          names,
        ])
      ).rows.map((row) => row.rolname);
    const [idle, busy, mine, older] = issued;
    if (!idle || !busy || !mine || !older) throw new Error('eight lines were issued');
    // One old line, running a worker (its session open, as every other line's is not): never taken.
    const busyLine = await issueWorkerLine({ holder: holderOf(`own-${address}-1`), lab: LAB, address });
    const worker = await connect(workerLineUrl(databaseUrl(), busyLine));
    const name = `Own${randomBytes(2).toString('hex')}`;
    const instance = randomBytes(12).toString('hex');
    await worker.query('SELECT * FROM worker_join($1, $2, $3, $4)', [LAB, name, instance, JSON.stringify({ name })]);
    // Stopped at the end: a live remote worker counts in this machine's share of the shared labs' (4).
    stop = () => worker.query('SELECT worker_mark_stopped($1, $2, $3)', [LAB, name, instance]);
    await age([busy]);
    await assert.rejects(issueWorkerLine(ninth), /this address already holds 8 worker lines/);
    assert.deepEqual(await roles([busy]), [busy]);
    // A line asked for again at a full address is the same line, nothing taken back.
    const again = await issueWorkerLine({ holder: holderOf(`own-${address}-0`), lab: LAB, address });
    assert.equal(again.role, idle);
    // An idle one 11 minutes old as well: it is taken back, the busy one kept, its worker going on.
    await age([idle]);
    const line = await issueWorkerLine(ninth);
    issued.push(line.role);
    assert.deepEqual(await roles([idle, busy]), [busy]);
    assert.equal((await worker.query('SELECT 1 AS one')).rows[0]?.one, 1, "the busy line's worker goes on");
    // Two idle ones old, another browser's the older: the asking browser's own is taken first (an
    // address may be a few trainees behind one router).
    const mineHolder = holderOf(`own-${address}-2`);
    await age([older]);
    await owner.query(
      "UPDATE worker_lines SET issued_at = clock_timestamp() - interval '12 minutes' WHERE role_name = $1",
      [older],
    );
    await age([mine]);
    const second = await issueWorkerLine({ holder: mineHolder, lab: 'fenced', address });
    issued.push(second.role);
    assert.deepEqual(await roles([mine, older]), [older]);
    await owner.query('UPDATE worker_lines SET issued_at = clock_timestamp() WHERE role_name = $1', [older]);
    // Full again, and nothing of its own is idle: refused; another address's old idle line is not its to take.
    const other = await issueWorkerLine({ holder: holderOf(`own-${address}-other`), lab: LAB, address: '10.96.0.1' });
    issued.push(other.role);
    await owner.query(
      "UPDATE worker_lines SET issued_at = clock_timestamp() - interval '11 minutes' WHERE role_name = $1",
      [other.role],
    );
    await assert.rejects(
      issueWorkerLine({ holder: holderOf(`own-${address}-tenth`), lab: LAB, address }),
      /this address already holds 8 worker lines/,
    );
    const kept = await owner.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [other.role]);
    assert.equal(kept.rows.length, 1, "another address's line is kept");
  } finally {
    await stop?.();
    // The idle one was taken back already.
    await owner.query('SELECT fl_drop_worker_line(role_name) FROM worker_lines WHERE role_name = ANY ($1)', [issued]);
    await owner.end();
  }
});

test('a line queued behind another role holds nothing, and is not ended; the one at the head is', async () => {
  const line = await lineOf('queued');
  const db = await connect(workerLineUrl(databaseUrl(), line));
  const name = `Queued${randomBytes(2).toString('hex')}`;
  const instance = randomBytes(12).toString('hex');
  await db.query('SELECT * FROM worker_join($1, $2, $3, $4)', [LAB, name, instance, JSON.stringify({ name })]);
  await db.query('SET lock_timeout = 0');
  await db.query('SET statement_timeout = 0');
  // The app holds the lab's events lock (as a reset does); the line queues behind it, and the app's second session behind both.
  const holder = await getPool().connect();
  const third = await getPool().connect();
  try {
    const linePid = await backendPid(db);
    const thirdPid = await backendPid(third);
    await holder.query('BEGIN');
    await holder.query("SELECT pg_advisory_xact_lock(hashtext('fencing_lab.events'), hashtext($1))", [LAB]);
    const queued = db.query("SELECT worker_record_event($1, $2, $3, 'write_sent', NULL, '{}')", [LAB, name, instance]);
    await waitFor(() => waitsOnALock(linePid, 0), 'the line to queue on the lock');
    await third.query('BEGIN');
    const behind = third.query("SELECT pg_advisory_xact_lock(hashtext('fencing_lab.events'), hashtext($1))", [LAB]);
    // Asked once the app's second session has waited well past the 150 ms budget, by the database's clock.
    await waitFor(() => waitsOnALock(thirdPid, 400), "the app's second session to wait 400 ms");
    assert.equal(await endBlockingWorkerSessions({ waitMs: 150, transactionMs: 60_000 }), 0, 'nobody ended');
    await holder.query('COMMIT');
    await queued;
    await behind;
    await third.query('COMMIT');
  } finally {
    holder.release();
    third.release();
  }
});

/** Whether the session `pid` has waited on a lock for at least `ms`, by the database's clock. */
async function waitsOnALock(pid: number, ms: number): Promise<boolean> {
  const { rows } = await getPool().query(
    'SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted AND waitstart <= clock_timestamp() - make_interval(secs => $2 / 1000.0)',
    [pid, ms],
  );
  return rows.length > 0;
}

async function joinAndStop(db: pg.Client, name: string): Promise<string | null> {
  const instance = randomBytes(12).toString('hex');
  const { rows } = await db.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4)', [
    LAB,
    name,
    instance,
    JSON.stringify({ name }),
  ]);
  const refusal = rows[0]?.refusal ?? null;
  if (refusal === null) await db.query('SELECT worker_mark_stopped($1, $2, $3)', [LAB, name, instance]);
  return refusal;
}

test(`a line joins a lab under at most ${WORKER_BOUNDS.worker_line_names_per_lab} names; one it used joins again`, async () => {
  // Each new name was a row the lab kept for ever: about 150 in 2 s (issue 33 review).
  const db = await connect(workerLineUrl(databaseUrl(), await lineOf('many-names')));
  const names = Array.from({ length: WORKER_BOUNDS.worker_line_names_per_lab }, (_, n) => `Many${n}`);
  for (const name of names) assert.equal(await joinAndStop(db, name), null, name);
  assert.equal(await joinAndStop(db, 'Many one more'), 'line_names');
  assert.equal(await joinAndStop(db, names[0] as string), null, 'a name it used');
  // Another person's line has names of its own.
  const other = await connect(workerLineUrl(databaseUrl(), await lineOf('other-names')));
  assert.equal(await joinAndStop(other, 'Other0'), null);
});

test('a full room takes back a line that runs no worker, its idle session ended, never one whose worker beats', async () => {
  // Lines could be used up: a session left open (a psql, an idle connection) kept a line from the room for ever.
  const owner = newClient(databaseUrl());
  await owner.connect();
  const fillers: string[] = [];
  try {
    const idle = await lineOf('room-idle-session');
    const busy = await lineOf('room-busy-worker');
    const idleSession = await connect(workerLineUrl(databaseUrl(), idle));
    const worker = await connect(workerLineUrl(databaseUrl(), busy));
    const name = `Busy${randomBytes(2).toString('hex')}`;
    await worker.query('SELECT * FROM worker_join($1, $2, $3, $4)', [
      LAB,
      name,
      randomBytes(12).toString('hex'),
      JSON.stringify({ name }),
    ]);
    await owner.query('UPDATE worker_lines SET issued_at = clock_timestamp()');
    for (let n = 0; ; n++) {
      const refused = await issueWorkerLine({
        holder: holderOf(`room-filler-${n}`),
        lab: LAB,
        address: `10.77.${Math.floor(n / 4)}.${n % 4}`,
      }).then(
        (line) => {
          fillers.push(line.role);
          return null;
        },
        (error: Error) => error,
      );
      if (refused) {
        assert.match(refused.message, /the room's worker lines are all in use/);
        break;
      }
      assert.ok(n < 200, 'the room fills up');
    }
    // Both issued more than 10 minutes ago: the idle one is taken back, the busy one kept.
    await owner.query(
      "UPDATE worker_lines SET issued_at = clock_timestamp() - interval '11 minutes' WHERE role_name = ANY ($1)",
      [[idle.role, busy.role]],
    );
    const next = await issueWorkerLine({ holder: holderOf('room-next'), lab: LAB, address: '10.78.0.1' });
    fillers.push(next.role);
    const roles = await owner.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname = ANY ($1)', [
      [idle.role, busy.role],
    ]);
    assert.deepEqual(
      roles.rows.map((row) => row.rolname),
      [busy.role],
    );
    await assert.rejects(idleSession.query('SELECT 1'), /terminat|Connection terminated|not queryable/);
    await assert.rejects(
      issueWorkerLine({ holder: holderOf('room-after-next'), lab: LAB, address: '10.78.0.2' }),
      /the room's worker lines are all in use/,
    );
    assert.equal((await worker.query('SELECT 1 AS one')).rows[0]?.one, 1, "the busy line's worker goes on");
  } finally {
    for (const role of fillers) await owner.query('SELECT fl_drop_worker_line($1)', [role]);
    await owner.end();
  }
});
