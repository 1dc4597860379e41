import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { type ExploreLab, exploreLabOf } from '../lib/model/explore/explore-labs';
import { FENCED_PREDICATE, memoryStorage, NO_CHECK } from '../lib/model/explore/memory-storage';
import { explore, stepIndexes } from '../lib/model/explore/search';
import type { ExploreBounds } from '../lib/model/explore/story';
import { verdictSentence } from '../lib/model/explore/verdict';
import type { LabId } from '../lib/model/lab/lab-kinds';
import { exploreOnDatabase, type PlantedPredicate, walkOnDatabase } from './explore';
import { closePool, getPool, newClient } from './pool';

after(closePool);

/** Each exploration here is a few hundred statements: far below this on the 2-CPU machine. */
const DEADLINE_MS = 60_000;

function labOf(kind: LabId): ExploreLab {
  const lab = exploreLabOf(kind);
  if ('refusal' in lab) assert.fail(lab.refusal);
  return lab;
}

const run = (kind: LabId, bounds: ExploreBounds, planted?: PlantedPredicate) =>
  exploreOnDatabase({ lab: labOf(kind), bounds, ...(planted ? { planted } : {}) });

describe('the explorer on the real database', { timeout: DEADLINE_MS * 4 }, () => {
  test('fenced holds in every interleaving of 2 holders × 2 and × 3 writes', { timeout: DEADLINE_MS }, async () => {
    for (const writes of [2, 3]) {
      const explored = await run('fenced', { holders: 2, writes });
      const { counts } = explored.result;
      console.log(`fenced 2×${writes}: ${JSON.stringify(counts)} in ${explored.seconds.toFixed(2)} s`);
      assert.equal(counts.broken, 0, verdictSentence('Fenced', explored.result, explored.seconds));
      assert.ok(counts.interleavings > 0 && counts.storageSteps > 0);
      assert.equal(explored.result.shortest, undefined);
      assert.ok(explored.reserved.length === 2 && (explored.reserved[0] as number) > 0);
    }
  });

  test('the database and the storage in memory agree on every count, 3 holders included', {
    timeout: DEADLINE_MS,
  }, async () => {
    // A savepoint rolled back to the wrong depth shows here first: the row holds an older state than the path's.
    for (const [kind, predicate] of [
      ['fenced', FENCED_PREDICATE],
      ['no-fencing', NO_CHECK],
      ['read-check-write', NO_CHECK],
    ] as const) {
      for (const bounds of [
        { holders: 3, writes: 2 },
        { holders: 2, writes: 3 },
      ]) {
        const onDatabase = await run(kind, bounds);
        const row = { value: 'initial', token: 0 };
        const inMemory = await explore({
          bounds,
          start: {
            rule: { tokens: [1, 2, 3], writeWith: 'lease-token' },
            row,
            ...(kind === 'read-check-write' ? { checkFirst: true } : {}),
          },
          storage: memoryStorage(predicate, row),
        });
        assert.deepEqual(onDatabase.result.counts, inMemory.counts, `${kind} ${bounds.holders} × ${bounds.writes}`);
      }
    }
  });

  test('careful holders (renew before each write): fenced holds, no fencing still breaks, as in memory', {
    timeout: DEADLINE_MS,
  }, async () => {
    const bounds = { holders: 2, writes: 3, renew: true };
    for (const [kind, predicate] of [
      ['fenced', FENCED_PREDICATE],
      ['no-fencing', NO_CHECK],
    ] as const) {
      const onDatabase = await run(kind, bounds);
      const row = { value: 'initial', token: 0 };
      const inMemory = await explore({
        bounds,
        start: { rule: { tokens: [1, 2, 3], writeWith: 'lease-token' }, row },
        storage: memoryStorage(predicate, row),
      });
      assert.deepEqual(onDatabase.result.counts, inMemory.counts, kind);
      assert.equal(onDatabase.result.counts.broken > 0, kind === 'no-fencing', kind);
    }
    // A writes, renews (still its lease), is delayed; its lease runs out, B takes it and writes; A's write lands.
    const lab = labOf('no-fencing');
    const kinds = ['acquire', 'write', 'renew', 'expire', 'acquire', 'write', 'write'];
    let path: number[] = [];
    for (const [i, kind] of kinds.entries()) {
      const here = await walkOnDatabase({ lab, bounds, path });
      const holder = i === 4 || i === 5 ? 'B' : 'A';
      const index = here.next.findIndex((s) => s.kind === kind && (!('holder' in s) || s.holder === holder));
      assert.ok(index >= 0, `${kind} ${holder} is enabled after ${path.join('.')}`);
      path = [...path, index];
    }
    const walked = await walkOnDatabase({ lab, bounds, path });
    assert.deepEqual(
      walked.events.map((e) => [e.actor, e.kind]),
      [
        ['A', 'lease_acquired'],
        ['A', 'write_accepted'],
        ['A', 'lease_renewed'],
        ['A', 'lease_expired'],
        ['B', 'lease_acquired'],
        ['B', 'write_accepted'],
        ['A', 'write_accepted'],
      ],
    );
    assert.ok(walked.violation, 'the write after a renewal, once the lease ran out, is a lost update');
  });

  test('read-check-write: its read and its write are two steps, and a pause between them breaks it', {
    timeout: DEADLINE_MS,
  }, async () => {
    const explored = await run('read-check-write', { holders: 2, writes: 2 });
    const { counts, shortest } = explored.result;
    assert.ok(counts.broken > 0 && counts.broken < counts.interleavings, 'it breaks in some interleavings, not all');
    // A checks while its token is the newest, B takes over and writes, then A's write goes in unchecked:
    // 7 steps (the order of A's check and B's grant is one of two equally short).
    assert.equal(shortest?.steps.length, 7);
    const told = (shortest?.events ?? []).map((e) => [e.actor, e.kind, e.token, e.detail.checked ?? null]);
    assert.deepEqual(told.at(-1), ['A', 'write_accepted', 1, null], 'the stale write goes in');
    assert.deepEqual(told.at(-2), ['B', 'write_accepted', 2, null]);
    assert.ok(
      told.findIndex((e) => e[0] === 'A' && e[1] === 'write_sent' && e[3] === 0) < told.length - 2,
      "A's check read the row before B's write",
    );
    // A check that reads the newer token gives the write up: walked on the database, A checks after B wrote.
    const lab = labOf('read-check-write');
    const bounds = { holders: 2, writes: 2 };
    const start = {
      rule: { tokens: [1, 2], writeWith: 'lease-token' as const },
      row: { value: '', token: 0 },
      checkFirst: true,
    };
    const path = stepIndexes(bounds, start, [
      { kind: 'acquire', holder: 'A' },
      { kind: 'expire' },
      { kind: 'acquire', holder: 'B' },
      { kind: 'check', holder: 'B' },
      { kind: 'write', holder: 'B' },
      { kind: 'check', holder: 'A' },
      { kind: 'write', holder: 'A' },
    ]);
    assert.equal(path.length, 7);
    const walked = await walkOnDatabase({ lab, bounds, path });
    assert.deepEqual(
      walked.taken.slice(-2).map((t) => t.words),
      [
        `A reads the row's token, 2, and checks its own, 1: fails: it will give up its write of "A1"`,
        `A's write of "A1" with token 1 is given up: its check read a newer token`,
      ],
    );
    assert.equal(walked.violation, undefined);
    assert.equal(walked.state.row.value, 'B1');
  });

  test('the labs whose write takes only a granted token: the fenced drifting clock holds, the same-token takeover breaks', {
    timeout: DEADLINE_MS,
  }, async () => {
    const bounds = { holders: 2, writes: 3 };
    const row = { value: 'initial', token: 0 };
    const drifting = await run('drifting-clock-fenced', bounds);
    assert.equal(drifting.result.counts.broken, 0);
    const fencedInMemory = await explore({
      bounds,
      start: { rule: { tokens: [1, 2], writeWith: 'lease-token' }, row },
      storage: memoryStorage(FENCED_PREDICATE, row),
    });
    assert.deepEqual(drifting.result.counts, fencedInMemory.counts);
    // The takeover keeps A's token: granted twice, which the checker names before any write.
    const same = await run('same-token-takeover', bounds);
    assert.deepEqual(same.result.shortest?.steps, [
      { kind: 'acquire', holder: 'A' },
      { kind: 'expire' },
      { kind: 'acquire', holder: 'B' },
    ]);
    assert.equal(same.result.shortest?.violation.rule, 'token-granted-twice');
    const sameInMemory = await explore({
      bounds,
      start: { rule: { tokens: [1, 2], writeWith: 'lease-token', keptOnTakeover: true }, row },
      storage: memoryStorage(FENCED_PREDICATE, row),
    });
    assert.deepEqual(same.result.counts, sameInMemory.counts);
  });

  test('no fencing breaks, and the shortest way is the known five steps', { timeout: DEADLINE_MS }, async () => {
    const explored = await run('no-fencing', { holders: 2, writes: 2 });
    const shortest = explored.result.shortest;
    assert.ok(explored.result.counts.broken > 0);
    assert.deepEqual(shortest?.steps, [
      { kind: 'acquire', holder: 'A' },
      { kind: 'expire' },
      { kind: 'acquire', holder: 'B' },
      { kind: 'write', holder: 'B' },
      { kind: 'write', holder: 'A' },
    ]);
    assert.deepEqual(
      shortest?.events.slice(3).map((e) => [e.actor, e.kind, e.token, e.detail.value]),
      [
        ['B', 'write_accepted', 2, 'B1'],
        ['A', 'write_accepted', 1, 'A1'],
      ],
      "A's old token is accepted over B's write",
    );
    assert.equal(shortest?.violation.eventIds.at(-1), 5);
  });

  test('the delayed packet: fenced holds with the fenced counts; unfenced breaks in the known five steps', {
    timeout: DEADLINE_MS,
  }, async () => {
    const bounds = { holders: 2, writes: 3 };
    const fenced = await run('fenced', bounds);
    const held = await run('delayed-packet', bounds);
    assert.equal(held.result.counts.broken, 0, verdictSentence('A delayed packet, fenced', held.result, held.seconds));
    assert.deepEqual(held.result.counts, fenced.result.counts, 'the relay delivers the fenced rule: the same space');
    const lost = await run('delayed-packet-unfenced', bounds);
    assert.deepEqual(
      lost.result.shortest?.events.slice(3).map((e) => [e.actor, e.kind, e.token]),
      [
        ['B', 'write_accepted', 2],
        ['A', 'write_accepted', 1],
      ],
    );
  });

  test('the bypass lab breaks by an overdue write on its catch-up path; a write on time is fenced', {
    timeout: DEADLINE_MS,
  }, async () => {
    const explored = await run('bypass', { holders: 2, writes: 3 });
    const shortest = explored.result.shortest;
    assert.equal(shortest?.steps.length, 5);
    const [bWrite, aWrite] = shortest?.events.slice(3) ?? [];
    assert.deepEqual([bWrite?.actor, bWrite?.kind, bWrite?.detail.path], ['B', 'write_accepted', undefined]);
    assert.deepEqual(
      [aWrite?.actor, aWrite?.kind, aWrite?.token, aWrite?.detail.path],
      ['A', 'write_accepted', 1, 'catch-up'],
    );
    // On time, the fenced path: A is granted the lease, then writes (step 1 of [the expiry, A's write]).
    const onTime = await walkOnDatabase({ lab: labOf('bypass'), bounds: { holders: 2, writes: 1 }, path: [0, 1] });
    assert.deepEqual(
      onTime.events.filter((e) => e.kind.startsWith('write_')).map((e) => [e.actor, e.detail.path]),
      [['A', undefined]],
    );
  });

  test('a path walked on the database (the Explore page): the shortest way to break no fencing, step by step', {
    timeout: DEADLINE_MS,
  }, async () => {
    const lab = labOf('no-fencing');
    const bounds = { holders: 2, writes: 2 };
    const explored = await run('no-fencing', bounds);
    const steps = explored.result.shortest?.steps ?? [];
    const start = { rule: { tokens: [1, 2], writeWith: 'lease-token' as const }, row: { value: '', token: 0 } };
    const path = stepIndexes(bounds, start, steps);
    assert.equal(path.length, 5, `the path of the five steps: ${path}`);

    const walked = await walkOnDatabase({ lab, bounds, path });
    assert.deepEqual(
      walked.taken.map((t) => t.step),
      steps,
    );
    assert.match(walked.taken.at(-1)?.words ?? '', /^A's write of "A1" with token 1 reaches the row: accepted$/);
    assert.equal(walked.violation?.rule, explored.result.shortest?.violation.rule);
    assert.deepEqual(walked.next, [], 'nothing after the violation');
    assert.deepEqual(walked.state.row, { value: 'A1', token: 1 }, "the row lost B's value");

    // One step back: B's write is the row's, and A's write is one of what may happen next.
    const back = await walkOnDatabase({ lab, bounds, path: path.slice(0, -1) });
    assert.equal(back.violation, undefined);
    assert.deepEqual(back.state.row, { value: 'B1', token: 2 });
    assert.ok(back.next.some((step) => step.kind === 'write' && step.holder === 'A'));

    // A path past what is enabled stops where it stops being one.
    const cut = await walkOnDatabase({ lab, bounds, path: [0, 9, 0] });
    assert.equal(cut.taken.length, 1);
  });

  test('token as text breaks as its SQL says: the newer token 10 is refused after 9', {
    timeout: DEADLINE_MS,
  }, async () => {
    const explored = await run('token-as-text', { holders: 2, writes: 2 });
    const shortest = explored.result.shortest;
    assert.ok(explored.result.counts.broken > 0);
    const last = shortest?.events.at(-1);
    assert.deepEqual([last?.actor, last?.kind, last?.token, last?.storedToken], ['B', 'write_rejected', 10, 9]);
    assert.ok(shortest?.violation.kinds.includes('newer-token-rejected'), shortest?.violation.message);
  });

  test("the per-process counter breaks: B's grant counts 1, and A's old write with the same 1 goes through", {
    timeout: DEADLINE_MS,
  }, async () => {
    const explored = await run('per-process-counter', { holders: 2, writes: 2 });
    const shortest = explored.result.shortest;
    assert.equal(shortest?.steps.length, 5);
    assert.deepEqual(
      shortest?.events.slice(2).map((e) => [e.actor, e.kind, e.token, e.detail.counter]),
      [
        ['B', 'lease_acquired', 2, 1],
        ['B', 'write_accepted', 1, undefined],
        ['A', 'write_accepted', 1, undefined],
      ],
    );
    assert.equal(shortest?.violation.rule, 'superseded-holder');
  });

  test('fenced, with leases granted up front: the count is the closed form C(m + n, m)', {
    timeout: DEADLINE_MS,
  }, async () => {
    for (const [writes, binomial] of [
      [2, 6],
      [3, 20],
    ] as const) {
      const explored = await run('fenced', { holders: 2, writes, leases: 'granted-up-front' });
      assert.equal(explored.result.counts.interleavings, binomial);
      assert.equal(explored.result.counts.broken, 0);
      assert.ok(explored.result.counts.duplicates > 0, 'the memo is on');
    }
  });

  test('two sessions side by side: the same counts and the same shortest way as one session', {
    timeout: DEADLINE_MS,
  }, async () => {
    // The second session writes its own block's tokens for the story's; a wrong map shows as another outcome.
    for (const kind of ['fenced', 'no-fencing', 'read-check-write'] as const) {
      const bounds = { holders: 3, writes: 2 };
      const one = await exploreOnDatabase({ lab: labOf(kind), bounds, sessions: 1 });
      const two = await exploreOnDatabase({ lab: labOf(kind), bounds, sessions: 2 });
      assert.equal(one.sessions, 1);
      assert.equal(two.sessions, 2);
      assert.deepEqual(two.result.counts, one.result.counts, kind);
      assert.deepEqual(
        two.result.shortest?.steps,
        one.result.shortest?.steps,
        `${kind}: the shortest way is the same steps`,
      );
      console.log(`${kind} 3×2: one session ${one.seconds.toFixed(2)} s, two ${two.seconds.toFixed(2)} s`);
    }
  });

  test('nothing committed: the tables are as before, the sequence moved only by the block', {
    timeout: DEADLINE_MS,
  }, async () => {
    const before = await snapshot();
    const fenced = await run('fenced', { holders: 3, writes: 1 });
    const broken = await run('no-fencing', { holders: 2, writes: 2 });
    const after = await snapshot();
    assert.deepEqual(after.tables, before.tables);
    // Each session's own block of 3 tokens (lease_grants holds a token once), and nothing else.
    assert.ok(fenced.sessions > 1, 'side by side');
    assert.equal(after.epoch - before.epoch, 3 * fenced.sessions, 'a block of 3 tokens a session, and nothing else');
    assert.deepEqual(fenced.reserved, [before.epoch + 1, before.epoch + 2, before.epoch + 3]);
    const gone = await getPool().query('SELECT 1 FROM protected_rows WHERE id = $1', [fenced.row.id]);
    assert.equal(gone.rowCount, 0);
    const goneToo = await getPool().query('SELECT 1 FROM unguarded_rows WHERE id = $1', [broken.row.id]);
    assert.equal(goneToo.rowCount, 0);
  });

  test('planted bugs in the fenced predicate: >= breaks, < still holds, true is caught by the trigger', {
    timeout: DEADLINE_MS,
  }, async () => {
    const greater = await run('fenced', { holders: 2, writes: 2 }, '>=');
    assert.ok(greater.result.counts.broken > 0, '>= must break');
    const strict = await run('fenced', { holders: 2, writes: 2 }, '<');
    assert.equal(strict.result.counts.broken, 0, '< still holds');
    const dropped = await run('fenced', { holders: 2, writes: 2 }, 'true');
    assert.equal(dropped.result.counts.broken, 0, "the row's trigger refuses the older token");
    assert.ok(dropped.result.counts.refused > 0, 'refused by the trigger, not by the predicate');
    assert.equal(strict.result.counts.refused, 0);
    const owner = newClient();
    await owner.connect();
    try {
      const real = await owner.query<{ ok: boolean }>("SELECT fl_may_write('fenced', 2, 1) = false AS ok");
      assert.equal(real.rows[0]?.ok, true, 'the planted predicate was rolled back');
    } finally {
      await owner.end();
    }
  });
});

const TABLES = ['protected_rows', 'unguarded_rows', 'events', 'leases', 'lease_grants', 'labs'] as const;

/** Count and newest id of each table (or its whole key, for a table without an id), and the sequence. */
async function snapshot(): Promise<{ tables: Record<string, string>; epoch: number }> {
  const client = newClient();
  await client.connect();
  try {
    const tables: Record<string, string> = {};
    for (const table of TABLES) {
      const { rows } = await client.query(
        `SELECT count(*)::text || '/' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') AS s FROM ${table} t`,
      );
      tables[table] = String(rows[0]?.s);
    }
    const { rows } = await client.query<{ last: string }>(
      'SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS last FROM write_epoch',
    );
    return { tables, epoch: Number(rows[0]?.last) };
  } finally {
    await client.end();
  }
}
