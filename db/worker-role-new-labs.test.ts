import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { INITIAL_ROW_VALUE } from '../lib/supervisor/lab-reset';
import { refusedWith } from '../lib/testing/refused-with';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { setRemoteWorkersOpen } from './lab-doors';
import { closeLab, createPrivateLab, type LabRecord, labJoinKey } from './labs';
import { closePool, newClient } from './pool';

/*
 * The two labs of issue 13 that need no new infrastructure, through the worker's door AS THE WORKER
 * ROLE: the same-token-takeover lab's broken lease service (fl_broken_takeover_same_token, 0021),
 * which only that lab reaches, and the drifting-clock lab's unfenced write. And the other side of
 * it: the fenced lab and the safe functions never hand out a token twice, takeover included.
 */

const INSUFFICIENT_PRIVILEGE = '42501';
const NOT_THIS_LABS = 'FL011';
/** The shortest lease the worker functions take: long enough to write, short enough to wait out. */
const SHORT_TTL_MS = 300;

let worker: pg.Client;
let owner: pg.Client;
const opened: string[] = [];

before(async () => {
  worker = newClient(await testWorkerLineUrl());
  await worker.connect();
  owner = newClient();
  await owner.connect();
});

// Each test's labs are closed after it: the file opens more than the server's cap of open private labs.
afterEach(async () => {
  for (let id = opened.pop(); id !== undefined; id = opened.pop()) await closeLab(id);
});

after(async () => {
  await worker.end();
  await owner.end();
  await closePool();
});

async function openLab(kind: LabId): Promise<LabRecord> {
  const lab = await createPrivateLab({
    kind,
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `new-labs-test-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  opened.push(lab.id);
  return lab;
}

type Me = { lab: string; name: string; instance: string };

async function join(lab: LabRecord, name: string): Promise<Me> {
  const me = { lab: lab.id, name, instance: randomBytes(8).toString('hex') };
  const { rows } = await worker.query<{ refusal: string | null; kind: string }>(
    'SELECT * FROM worker_join($1, $2, $3, $4, $5)',
    [me.lab, me.name, me.instance, JSON.stringify({ name }), await labJoinKey(lab.id)],
  );
  assert.equal(rows[0]?.refusal, null, `${name} joins ${lab.id}`);
  assert.equal(rows[0]?.kind, lab.kind);
  return me;
}

type Grant = { outcome: string; token: number; prevHolder: string | null };

async function acquire(me: Me, door: 'safe' | 'same-token', ttlMs = SHORT_TTL_MS): Promise<Grant> {
  const fn = door === 'safe' ? 'worker_acquire_lease' : 'worker_acquire_lease_same_token';
  const { rows } = await worker.query<{ outcome: string; lease_token: string; prev_holder: string | null }>(
    `SELECT * FROM ${fn}($1, $2, $3, $4)`,
    [me.lab, me.name, me.instance, ttlMs],
  );
  return {
    outcome: rows[0]?.outcome ?? '',
    token: Number(rows[0]?.lease_token),
    prevHolder: rows[0]?.prev_holder ?? null,
  };
}

/** Takes the lease once the current one has run out by the database's clock. */
async function takeOver(me: Me, door: 'safe' | 'same-token'): Promise<Grant> {
  for (let tries = 0; tries < 100; tries++) {
    const grant = await acquire(me, door);
    if (grant.outcome === 'granted') return grant;
    await sleep(25);
  }
  throw new Error(`${me.name} never got the lease`);
}

async function brokenWrite(me: Me, mode: string, value: string, token: number): Promise<string | undefined> {
  const { rows } = await worker.query<{ outcome: string }>(
    'SELECT * FROM worker_broken_write($1, $2, $3, $4, $5, $6)',
    [me.lab, me.name, me.instance, mode, value, token],
  );
  return rows[0]?.outcome;
}

async function fencedWrite(me: Me, value: string, token: number): Promise<string | undefined> {
  const { rows } = await worker.query<{ outcome: string }>('SELECT * FROM worker_fenced_write($1, $2, $3, $4, $5)', [
    me.lab,
    me.name,
    me.instance,
    value,
    token,
  ]);
  return rows[0]?.outcome;
}

async function grantsIn(lab: string): Promise<Array<{ actor: string; token: number; takeover: string | null }>> {
  const { rows } = await owner.query<{ actor: string; token: string; takeover: string | null }>(
    "SELECT actor, token, detail ->> 'takeover' AS takeover FROM events WHERE lab = $1 AND kind = 'lease_acquired' ORDER BY id",
    [lab],
  );
  return rows.map((r) => ({ actor: r.actor, token: Number(r.token), takeover: r.takeover }));
}

async function rowOf(lab: LabRecord): Promise<{ value: string; last_token: string } | undefined> {
  const { rows } = await owner.query<{ value: string; last_token: string }>(
    'SELECT value, last_token FROM unguarded_rows WHERE id = $1',
    [lab.rowId],
  );
  return rows[0];
}

describe('a takeover without a new token (same-token-takeover), as the worker role', () => {
  test("B takes over A's expired lease with A's token, and A's late write passes the <= check: a lost update", async () => {
    const lab = await openLab('same-token-takeover');
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const first = await acquire(a, 'same-token');
    assert.equal(first.outcome, 'granted');
    assert.equal(first.prevHolder, null, 'a fresh grant');
    assert.equal(await brokenWrite(a, 'fenced', 'A-1', first.token), 'accepted');

    const second = await takeOver(b, 'same-token');
    assert.equal(second.prevHolder, 'A', "B took over A's expired lease");
    assert.equal(second.token, first.token, "the takeover handed B A's token instead of minting one");
    assert.equal(await brokenWrite(b, 'fenced', 'B-1', second.token), 'accepted');
    // A, late, with the same token: last_token <= token holds, and B's value is lost.
    assert.equal(await brokenWrite(a, 'fenced', 'A-late', first.token), 'accepted');
    assert.deepEqual(await rowOf(lab), { value: 'A-late', last_token: String(first.token) });

    const grants = await grantsIn(lab.id);
    assert.deepEqual(
      grants.map((g) => [g.actor, g.token, g.takeover]),
      [
        ['A', first.token, null],
        ['B', first.token, 'kept the token'],
      ],
      'two grants of one token in one lab, the second a takeover',
    );
  });

  test('fresh grants mint as usual: after a release, and for a holder taking back its own expired lease', async () => {
    const lab = await openLab('same-token-takeover');
    const a = await join(lab, 'A');
    const first = await acquire(a, 'same-token');
    await worker.query('SELECT * FROM worker_release_lease($1, $2, $3, $4)', [a.lab, a.name, a.instance, first.token]);
    const afterRelease = await acquire(a, 'same-token');
    assert.equal(afterRelease.outcome, 'granted');
    assert.ok(afterRelease.token > first.token, 'a grant on a free lease mints a token');
    const own = await takeOver(a, 'same-token');
    assert.ok(own.token > afterRelease.token, 'taking back its own expired lease mints one too');
  });

  test('each lease of a repeated token has its expiry recorded once', async () => {
    const lab = await openLab('same-token-takeover');
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const first = await acquire(a, 'same-token');
    await takeOver(b, 'same-token'); // A's lease ends: recorded by B's takeover
    const back = await takeOver(a, 'same-token'); // B's lease of the same token ends: recorded too
    assert.equal(back.token, first.token);
    const { rows } = await owner.query<{ actor: string }>(
      "SELECT actor FROM events WHERE lab = $1 AND kind = 'lease_expired' AND token = $2 ORDER BY id",
      [lab.id, first.token],
    );
    assert.deepEqual(
      rows.map((r) => r.actor),
      ['A', 'B'],
    );
  });

  test("the safe door mints a new token on a takeover, even in this lab: only this lab's own door keeps it", async () => {
    const lab = await openLab('same-token-takeover');
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const first = await acquire(a, 'safe');
    const second = await takeOver(b, 'safe');
    assert.equal(second.prevHolder, 'A');
    assert.ok(second.token > first.token);
  });
});

describe('the broken takeover is reachable only by its lab', () => {
  test('the worker role may not call fl_broken_takeover_same_token itself', async () => {
    await refusedWith(
      INSUFFICIENT_PRIVILEGE,
      worker.query(
        "SELECT * FROM fl_broken_takeover_same_token('lab/same-token-takeover', 'A', 1000, 'same-token-takeover', NULL)",
      ),
      'fl_broken_takeover_same_token',
    );
  });

  test("the worker's door to it refuses a worker of every other lab", async () => {
    for (const kind of [
      'fenced',
      'no-fencing',
      'token-as-text',
      'per-process-counter',
      'bypass',
      'drifting-clock',
    ] as const) {
      const me = await join(await openLab(kind), 'A');
      await refusedWith(NOT_THIS_LABS, acquire(me, 'same-token'), `${kind}: worker_acquire_lease_same_token`);
    }
  });

  test('the function itself refuses any other lab, whoever calls it', async () => {
    const fenced = await openLab('fenced');
    await refusedWith(
      NOT_THIS_LABS,
      owner.query('SELECT * FROM fl_broken_takeover_same_token($1, $2, $3, $4, NULL)', [
        fenced.resource,
        'A',
        1000,
        fenced.id,
      ]),
      'fl_broken_takeover_same_token in a fenced lab',
    );
    // Nor this lab's function on another lab's lease.
    const sameToken = await openLab('same-token-takeover');
    await refusedWith(
      NOT_THIS_LABS,
      owner.query('SELECT * FROM fl_broken_takeover_same_token($1, $2, $3, $4, NULL)', [
        fenced.resource,
        'A',
        1000,
        sameToken.id,
      ]),
      "the same-token lab's id with the fenced lab's lease",
    );
  });
});

describe('the fenced lab and the safe functions never hand out a repeated token', () => {
  test('takeover after takeover in a fenced lab: every grant a new, higher token; the late write rejected', async () => {
    const lab = await openLab('fenced');
    const workers = [await join(lab, 'A'), await join(lab, 'B'), await join(lab, 'C')];
    const tokens: number[] = [(await acquire(workers[0] as Me, 'safe')).token];
    for (let round = 1; round <= 5; round++) {
      const grant = await takeOver(workers[round % 3] as Me, 'safe');
      assert.ok(grant.prevHolder, 'a takeover of an expired lease');
      tokens.push(grant.token);
    }
    for (let i = 1; i < tokens.length; i++) assert.ok((tokens[i] as number) > (tokens[i - 1] as number));
    const grants = await grantsIn(lab.id);
    assert.equal(new Set(grants.map((g) => g.token)).size, grants.length, 'no token granted twice');
    assert.ok(grants.every((g) => g.takeover === null));
    const { rows } = await owner.query<{ n: number; distinct: number }>(
      'SELECT count(*)::int AS n, count(DISTINCT token)::int AS distinct FROM lease_grants WHERE lab = $1',
      [lab.id],
    );
    assert.equal(rows[0]?.n, tokens.length);
    assert.equal(rows[0]?.distinct, tokens.length);
    // The last holder writes; the one before it, late, is rejected.
    const last = workers[5 % 3] as Me;
    const before = workers[4 % 3] as Me;
    assert.equal(await fencedWrite(last, 'last', tokens[5] as number), 'accepted');
    assert.equal(await fencedWrite(before, 'late', tokens[4] as number), 'stale');
  });

  test('every lab but the same-token one mints on a takeover through the one door its workers have', async () => {
    for (const kind of ['no-fencing', 'read-check-write', 'per-process-counter', 'bypass', 'drifting-clock'] as const) {
      const lab = await openLab(kind);
      const a = await join(lab, 'A');
      const b = await join(lab, 'B');
      const first = await acquire(a, 'safe');
      const second = await takeOver(b, 'safe');
      assert.ok(second.token > first.token, `${kind}: the takeover minted a token`);
    }
  });
});

describe('a drifting clock (drifting-clock), as the worker role', () => {
  test("its write has no token check: A's older token overwrites B's newer one", async () => {
    const lab = await openLab('drifting-clock');
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const first = await acquire(a, 'safe');
    const second = await takeOver(b, 'safe');
    assert.equal(await brokenWrite(b, 'plain', 'B-1', second.token), 'accepted');
    assert.equal(await brokenWrite(a, 'plain', 'A-late', first.token), 'accepted');
    assert.deepEqual(await rowOf(lab), { value: 'A-late', last_token: String(first.token) });
    const { rows } = await owner.query<{ path: string }>(
      "SELECT detail ->> 'path' AS path FROM events WHERE lab = $1 AND kind = 'write_accepted' ORDER BY id",
      [lab.id],
    );
    assert.deepEqual(
      rows.map((r) => r.path),
      ['no token check', 'no token check'],
    );
  });

  test('it has no other write, and no other lab has its write', async () => {
    const drifting = await join(await openLab('drifting-clock'), 'A');
    const grant = await acquire(drifting, 'safe');
    await refusedWith(NOT_THIS_LABS, brokenWrite(drifting, 'fenced', 'x', grant.token), 'a fenced write');
    await refusedWith(NOT_THIS_LABS, brokenWrite(drifting, 'text', 'x', grant.token), 'a text write');
    const sameToken = await join(await openLab('same-token-takeover'), 'A');
    const own = await acquire(sameToken, 'same-token');
    await refusedWith(NOT_THIS_LABS, brokenWrite(sameToken, 'plain', 'x', own.token), 'an unfenced write');
  });
});

describe('a drifting clock, fenced (drifting-clock-fenced), as the worker role', () => {
  test("its write is fenced: A's older token is refused after B's newer one, and the row keeps B's value", async () => {
    const lab = await openLab('drifting-clock-fenced');
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const first = await acquire(a, 'safe');
    const second = await takeOver(b, 'safe');
    assert.ok(second.token > first.token, 'the takeover minted a token');
    assert.equal(await brokenWrite(b, 'fenced', 'B-1', second.token), 'accepted');
    assert.equal(await brokenWrite(a, 'fenced', 'A-late', first.token), 'stale');
    assert.deepEqual(await rowOf(lab), { value: 'B-1', last_token: String(second.token) });
  });

  test('it has no unfenced write, and takes only a token granted to that worker there', async () => {
    const lab = await openLab('drifting-clock-fenced');
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const grant = await acquire(a, 'safe');
    await refusedWith(NOT_THIS_LABS, brokenWrite(a, 'plain', 'x', grant.token), 'an unfenced write');
    await refusedWith(NOT_THIS_LABS, brokenWrite(a, 'text', 'x', grant.token), 'a text write');
    await refusedWith('FL009', brokenWrite(a, 'fenced', 'wedge', 9_000_000_000_000_000_000), 'a made-up token');
    await refusedWith('FL009', brokenWrite(b, 'fenced', 'B-early', grant.token), "A's token, written by B");
    assert.deepEqual(await rowOf(lab), { value: INITIAL_ROW_VALUE, last_token: '0' });
  });
});

describe("a worker's lease judged by the database's clock (worker_lease_by_database_clock), as the worker role", () => {
  type Answer = { holding: boolean; expires_at: Date | null; held_by: string | null };
  async function timeLeft(me: Me, token: number): Promise<Answer> {
    const { rows } = await worker.query<Answer>('SELECT * FROM worker_lease_by_database_clock($1, $2, $3, $4)', [
      me.lab,
      me.name,
      me.instance,
      token,
    ]);
    assert.equal(rows.length, 1, 'one answer');
    return rows[0] as Answer;
  }

  test("it answers about the asking worker's own lease only, on the database's clock", async () => {
    const lab = await openLab('drifting-clock');
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const grant = await acquire(a, 'safe');
    const running = await timeLeft(a, grant.token);
    assert.equal(running.holding, true, 'A holds its lease');
    assert.equal((await timeLeft(a, grant.token + 1)).holding, false, 'not with another token');
    assert.deepEqual(
      await timeLeft(b, grant.token),
      { holding: false, expires_at: null, held_by: 'A' },
      'B learns only who holds the lease, as a busy grant tells it',
    );
    await sleep(SHORT_TTL_MS + 50);
    const over = await timeLeft(a, grant.token);
    assert.equal(over.holding, false, "its lease ran out by the database's clock, nobody else holding it yet");
    assert.deepEqual(over.expires_at, running.expires_at);
    const taken = await takeOver(b, 'safe');
    assert.deepEqual(await timeLeft(a, grant.token), { holding: false, expires_at: null, held_by: 'B' });
    assert.equal((await timeLeft(b, taken.token)).holding, true);
    await refusedWith('FL008', timeLeft({ ...a, instance: randomBytes(8).toString('hex') }, grant.token), 'not A');
    await refusedWith('FL008', timeLeft({ ...a, lab: 'drifting-clock' }, grant.token), 'a lab A did not join');
    await owner.query('SELECT lab_generation_bump($1)', [lab.id]);
    await refusedWith('FL007', timeLeft(b, taken.token), 'after a reset of the lab');
  });

  test('a worker of any other lab may not ask, and the app role may not call it at all', async () => {
    for (const kind of ['fenced', 'no-fencing', 'delayed-packet'] as const) {
      const me = await join(await openLab(kind), 'A');
      const grant = await acquire(me, 'safe');
      await refusedWith(NOT_THIS_LABS, timeLeft(me, grant.token), kind);
    }
    const { rows } = await owner.query<{ app: boolean; worker: boolean }>(
      `SELECT has_function_privilege(fencing_lab_role('app'), p.oid, 'EXECUTE') AS app,
              has_function_privilege(fencing_lab_role('worker'), p.oid, 'EXECUTE') AS worker
         FROM pg_proc p WHERE p.proname = 'worker_lease_by_database_clock'`,
    );
    assert.deepEqual(rows, [{ app: false, worker: true }]);
  });
});

describe("the drift setting at the database's door (worker_join), as the worker role", () => {
  const INVALID = '22023';

  async function joinWith(
    lab: string,
    name: string,
    clockSlowPercent: unknown,
    joinKey: string | null | undefined,
  ): Promise<{ refusal: string | null; kind: string | null } | undefined> {
    const { rows } = await worker.query<{ refusal: string | null; kind: string | null }>(
      'SELECT * FROM worker_join($1, $2, $3, $4, $5)',
      [lab, name, randomBytes(8).toString('hex'), JSON.stringify({ name, clockSlowPercent }), joinKey ?? null],
    );
    return rows[0];
  }

  async function statusRow(lab: string, name: string): Promise<unknown> {
    const { rows } = await owner.query('SELECT settings FROM remote_workers WHERE lab = $1 AND name = $2', [lab, name]);
    return rows[0]?.settings;
  }

  for (const kind of ['drifting-clock', 'drifting-clock-fenced'] as const) {
    test(`a ${kind} lab takes a whole percentage from 0 to 90, and nothing else`, async () => {
      const lab = await openLab(kind);
      const key = await labJoinKey(lab.id);
      for (const [i, bad] of [5000, 91, -3.5, -1, 50.5, '50', null, true, [50], { slow: 50 }].entries()) {
        await refusedWith(INVALID, joinWith(lab.id, `Bad${i}`, bad, key), `clockSlowPercent ${JSON.stringify(bad)}`);
        assert.equal(await statusRow(lab.id, `Bad${i}`), undefined, `${JSON.stringify(bad)}: nothing stored`);
      }
      for (const good of [0, 50, 90]) {
        const joined = await joinWith(lab.id, `Good${good}`, good, key);
        assert.equal(joined?.refusal, null, `clockSlowPercent ${good}`);
        assert.deepEqual(await statusRow(lab.id, `Good${good}`), { name: `Good${good}`, clockSlowPercent: good });
      }
    });
  }

  test('any other lab, shared or private, refuses a drift setting (no_clock_drift, with its kind) and stores nothing', async () => {
    for (const kind of ['fenced', 'no-fencing', 'same-token-takeover', 'bypass'] as const) {
      const lab = await openLab(kind);
      const joined = await joinWith(lab.id, 'Drifter', 50, await labJoinKey(lab.id));
      assert.deepEqual(joined && { refusal: joined.refusal, kind: joined.kind }, { refusal: 'no_clock_drift', kind });
      assert.equal(await statusRow(lab.id, 'Drifter'), undefined, `${kind}: nothing stored`);
    }
    const shared = await joinWith('fenced', 'Drifter', 0, null);
    assert.equal(shared?.refusal, 'no_clock_drift', 'the shared fenced lab, even 0 % slow');
    assert.equal(await statusRow('fenced', 'Drifter'), undefined);
    // A private lab's kind is still told only to a worker with its key.
    const fenced = await openLab('fenced');
    assert.equal((await joinWith(fenced.id, 'Drifter', 50, null))?.refusal, 'no_lab');
  });
});

describe('the failover lab has no workers', () => {
  test('a worker joining it through the database is refused, and nothing of it is stored', async () => {
    const name = `F${randomBytes(3).toString('hex')}`;
    // Even with the lab opened to remote workers (closed, it refuses them before anything else).
    await setRemoteWorkersOpen('failover', true);
    await refusedWith(
      INSUFFICIENT_PRIVILEGE,
      worker.query('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
        'failover',
        name,
        randomBytes(8).toString('hex'),
        JSON.stringify({ name }),
        null,
      ]),
      'a worker of the failover lab',
    );
    const { rows } = await owner.query('SELECT 1 FROM remote_workers WHERE lab = $1', ['failover']);
    assert.equal(rows.length, 0);
    await setRemoteWorkersOpen('failover', false);
  });
});

describe("the same-token lab's write takes only a token the worker was granted there, in this run", () => {
  const NOT_GRANTED = 'FL009';

  test("a made-up token, another worker's, another lab's or a past run's is refused, and the row is untouched", async () => {
    const lab = await openLab('same-token-takeover');
    const a = await join(lab, 'A');
    const b = await join(lab, 'B');
    const mine = await acquire(a, 'same-token');
    assert.equal(await brokenWrite(a, 'fenced', 'A-1', mine.token), 'accepted');

    // A token far above any granted one would wedge the lab until a reset: every later write is stale.
    await refusedWith(NOT_GRANTED, brokenWrite(a, 'fenced', 'wedge', 9_000_000_000_000_000_000), 'a made-up token');
    await refusedWith(NOT_GRANTED, brokenWrite(b, 'fenced', 'B-early', mine.token), "A's token, written by B");
    const elsewhere = await join(await openLab('same-token-takeover'), 'A');
    const other = await acquire(elsewhere, 'same-token');
    await refusedWith(NOT_GRANTED, brokenWrite(a, 'fenced', 'A-other', other.token), "A's token of another lab");
    assert.deepEqual(await rowOf(lab), { value: 'A-1', last_token: String(mine.token) });

    // The lesson stands: B's takeover keeps A's token, and both write with it, A's late write last.
    const taken = await takeOver(b, 'same-token');
    assert.equal(taken.token, mine.token);
    assert.equal(await brokenWrite(b, 'fenced', 'B-1', taken.token), 'accepted');
    assert.equal(await brokenWrite(a, 'fenced', 'A-late', mine.token), 'accepted');
    assert.deepEqual(await rowOf(lab), { value: 'A-late', last_token: String(mine.token) });

    // A new run of the lab: A, joined again, may not write with the token of the run before.
    await owner.query('SELECT lab_generation_bump($1)', [lab.id]);
    const again = await join(lab, 'A');
    await refusedWith(NOT_GRANTED, brokenWrite(again, 'fenced', 'A-past', mine.token), "a past run's token");
    assert.deepEqual(await rowOf(lab), { value: 'A-late', last_token: String(mine.token) });
  });
});
