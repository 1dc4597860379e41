import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { waitFor } from '../lib/testing/wait';
import { appendEvent, listEvents } from './events';
import { closePool, getPool, newClient } from './pool';

/*
 * Events are ordered per lab (0009_events_lock_per_lab.sql): a reader of one lab that follows
 * "id > last seen" never skips an event, however many labs write at once, and labs no longer wait
 * on each other's commits.
 */

after(closePool);

const freshLab = () => `order-${randomUUID().slice(0, 8)}`;

async function connected(count: number): Promise<pg.Client[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const client = newClient();
      await client.connect();
      return client;
    }),
  );
}

const lastId = async (lab: string) => (await listEvents({ lab })).at(-1)?.id ?? 0;

const pidOf = async (client: pg.Client) =>
  (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;

/** The sessions `pid` waits on for a lock right now (none when it runs or is idle), as another session sees it. */
const blockersOf = async (pid: number) =>
  (await getPool().query<{ blockers: number[] }>('SELECT pg_blocking_pids($1) AS blockers', [pid])).rows[0]?.blockers ??
  [];

/*
 * Each insert below either finishes or waits on a lock, and which one is a fact PostgreSQL records
 * (pg_blocking_pids), so the test waits for it rather than for a time in which it would have finished.
 */
test("an open transaction in one lab holds up that lab's events only", async () => {
  const [a, b, c] = (await connected(3)) as [pg.Client, pg.Client, pg.Client];
  const [pidA, pidB, pidC] = (await Promise.all([a, b, c].map(pidOf))) as [number, number, number];
  const busy = freshLab();
  const other = freshLab();
  try {
    await a.query('BEGIN');
    await appendEvent(a, { lab: busy, actor: 'A', kind: 'write_sent' });

    // Another lab commits at once, while A's transaction is still open: it never waits on a lock.
    let otherLabDone = false;
    const otherLab = appendEvent(b, { lab: other, actor: 'B', kind: 'write_sent' }).then(() => {
      otherLabDone = true;
    });
    const otherLabFate = await waitFor(
      async () => (otherLabDone ? 'committed' : (await blockersOf(pidB)).length ? 'waiting on a lock' : undefined),
      "the other lab's insert committed, or waiting on a lock",
    );
    assert.equal(otherLabFate, 'committed');
    await otherLab;

    // The same lab waits for A's commit (on A's lock), and comes after it.
    let sameLabDone = false;
    const sameLab = appendEvent(c, { lab: busy, actor: 'C', kind: 'write_sent' }).then(() => {
      sameLabDone = true;
    });
    const sameLabFate = await waitFor(async () => {
      if (sameLabDone) return 'done';
      const blockers = await blockersOf(pidC);
      return blockers.length ? blockers : undefined;
    }, "the same lab's insert done, or waiting on a lock");
    assert.deepEqual(sameLabFate, [pidA], "the same lab's insert waits for the open transaction");
    await a.query('COMMIT');
    await sameLab;
    const events = await listEvents({ lab: busy });
    assert.deepEqual(
      events.map((e) => e.actor),
      ['A', 'C'],
      'ids in commit order',
    );
  } finally {
    await a.query('ROLLBACK').catch(() => undefined);
    await Promise.all([a, b, c].map((s) => s.end()));
  }
});

test('20 sessions writing 10 labs at once: a follower of each lab ("id > last seen") misses nothing', async () => {
  const LABS = 10;
  const SESSIONS = 20;
  const TRANSACTIONS_EACH = 30;
  const labs = Array.from({ length: LABS }, freshLab);
  const writers = await connected(SESSIONS);
  const seen = new Map(labs.map((lab) => [lab, [] as number[]]));
  let writing = true;

  // A follower per lab, as the live feed reads: only ids above the last one it saw.
  const followers = labs.map(async (lab) => {
    const ids = seen.get(lab) as number[];
    const follow = async () => {
      for (const event of await listEvents({ lab, afterId: ids.at(-1) ?? 0 })) ids.push(event.id);
    };
    while (writing) {
      await follow();
      // The follower's pace, as the feed polls, not a wait for anything: it reads until writing ends, then once more.
      await sleep(1);
    }
    await follow();
  });

  try {
    await Promise.all(
      writers.map(async (session, s) => {
        for (let n = 0; n < TRANSACTIONS_EACH; n++) {
          const lab = labs[(s * 7 + n * 3) % LABS] as string;
          await session.query('BEGIN');
          await appendEvent(session, { lab, actor: `s${s}`, kind: 'write_sent', detail: { n } });
          // Commit a little later, at random: ids drawn out of order would show as commits out of order.
          await session.query('SELECT pg_sleep(random() * 0.004)');
          await session.query('COMMIT');
        }
      }),
    );
  } finally {
    writing = false;
    await Promise.all(followers);
    await Promise.all(writers.map((w) => w.end()));
  }

  let total = 0;
  for (const lab of labs) {
    const all = (await listEvents({ lab })).map((e) => e.id);
    total += all.length;
    assert.deepEqual(seen.get(lab), all, `the follower of ${lab} saw every event, once, in id order`);
  }
  assert.equal(total, SESSIONS * TRANSACTIONS_EACH);
  assert.ok((await lastId(labs[0] as string)) > 0);
});
