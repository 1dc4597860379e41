import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { checkHistory } from '../lib/model/checker/checker';
import { failoverLab } from '../lib/model/explore/explore-labs';
import type { Replication } from '../lib/model/explore/failover-story';
import { pairMemoryStorage } from '../lib/model/explore/memory-storage';
import { explore, stepIndexes } from '../lib/model/explore/search';
import type { ExploreBounds, Step, StepEvent } from '../lib/model/explore/story';
import { eventWords } from '../lib/model/explore/story-words';
import { verdictSentence } from '../lib/model/explore/verdict';
import { FAILOVER_LAB } from '../lib/model/failover/failover-events';
import { exploreOnDatabase, walkOnDatabase } from './explore';
import { playFailoverOnDatabase } from './explore-failover';
import { closePool, newClient } from './pool';

after(closePool);

const DEADLINE_MS = 60_000;
const ROW = { value: 'initial', token: 0 };

const labOf = (replication: Replication) => failoverLab(FAILOVER_LAB, replication);
const run = (replication: Replication, bounds: ExploreBounds) => exploreOnDatabase({ lab: labOf(replication), bounds });
const inMemory = (replication: Replication, bounds: ExploreBounds) =>
  explore({
    bounds,
    start: { rule: { tokens: [], writeWith: 'lease-token' }, row: ROW, failover: { replication } },
    storage: pairMemoryStorage(replication, ROW),
    lab: FAILOVER_LAB,
  });

const wire = (events: readonly StepEvent[]) =>
  events.map((e, i) => ({ ...e, id: i + 1, at: i * 100, lab: FAILOVER_LAB }));

/** The lab's own story (lib/supervisor/failover/failover-story.ts), as the explorer's steps. */
const KNOWN_STORY: Step[] = [
  { kind: 'acquire', holder: 'A' },
  { kind: 'write', holder: 'A' },
  { kind: 'catch-up' },
  { kind: 'expire' },
  { kind: 'acquire', holder: 'B' },
  { kind: 'write', holder: 'B' },
  { kind: 'promote' },
  { kind: 'write', holder: 'A' },
];

describe('the failover lab explored on the real database', { timeout: DEADLINE_MS * 4 }, () => {
  test('asynchronous: it breaks, with the counts of the pair in memory; the shortest is an acknowledged write lost', {
    timeout: DEADLINE_MS,
  }, async () => {
    for (const bounds of [
      { holders: 2, writes: 2 },
      { holders: 3, writes: 1 },
    ]) {
      const explored = await run('async', bounds);
      const { counts, shortest } = explored.result;
      console.log(
        `failover async ${bounds.holders}×${bounds.writes}: ${JSON.stringify(counts)} in ${explored.seconds.toFixed(2)} s`,
      );
      // A savepoint rolled back to the wrong depth, or a copy or search_path it did not undo, shows here.
      assert.deepEqual(counts, (await inMemory('async', bounds)).counts, `${bounds.holders} × ${bounds.writes}`);
      assert.ok(counts.broken > 0 && counts.broken < counts.interleavings);
      assert.deepEqual(shortest?.steps, [
        { kind: 'acquire', holder: 'A' },
        { kind: 'write', holder: 'A' },
        { kind: 'promote' },
      ]);
      assert.equal(shortest?.violation.findings[0]?.rule, 'acknowledged-write-lost');
      assert.match(
        verdictSentence(labOf('async').title, explored.result, explored.seconds),
        /^Failover \(asynchronous replication\): breaks in .* the shortest has 3 steps: A asks for the lease and is granted token 1 on the primary; A's write of "A1" with token 1 reaches the row on the primary: accepted; The primary dies; the standby, 1 grant and 1 write behind, is promoted/,
      );
      assert.deepEqual(explored.reserved, [], 'the pair mints its own tokens: none taken from write_epoch');
    }
  });

  test('synchronous: no interleaving breaks, with the counts of the pair in memory', {
    timeout: DEADLINE_MS,
  }, async () => {
    for (const bounds of [
      { holders: 2, writes: 2 },
      { holders: 2, writes: 3 },
      { holders: 3, writes: 1 },
    ]) {
      const explored = await run('sync', bounds);
      console.log(
        `failover sync ${bounds.holders}×${bounds.writes}: ${JSON.stringify(explored.result.counts)} in ${explored.seconds.toFixed(2)} s`,
      );
      assert.equal(explored.result.counts.broken, 0, verdictSentence('sync', explored.result, explored.seconds));
      assert.deepEqual(explored.result.counts, (await inMemory('sync', bounds)).counts);
    }
  });

  test('the lab’s own story on the real UPDATE: asynchronous, A’s late write is accepted on the promoted standby', {
    timeout: DEADLINE_MS,
  }, async () => {
    const bounds = { holders: 2, writes: 2 };
    const played = await playFailoverOnDatabase({ lab: labOf('async'), bounds, steps: KNOWN_STORY });
    assert.deepEqual(played.rows, {
      primary: { value: 'B1', lastToken: '2' },
      standby: { value: 'A2', lastToken: '1' },
    });
    assert.equal(
      eventWords(played.events[6] as StepEvent),
      `The primary dies; the standby, 1 grant and 1 write behind, is promoted: its row holds "A1" with token 1, its lease is A's (token 1), and its next token is 34`,
    );
    assert.equal(
      eventWords(played.events[7] as StepEvent),
      `A's write of "A2" with token 1 reaches the row on the promoted standby: accepted`,
    );
    // The one checker: the loss at the promotion (B's write and B's grant), and the late write told inside it.
    const verdict = checkHistory(wire(played.events));
    assert.deepEqual(
      verdict.violations.map((v) => v.findings.map((f) => f.rule)),
      [['acknowledged-write-lost', 'stale-write-accepted'], ['acknowledged-write-lost']],
    );

    const sync = await playFailoverOnDatabase({
      lab: labOf('sync'),
      bounds,
      steps: KNOWN_STORY.filter((step) => step.kind !== 'catch-up'),
    });
    assert.equal(sync.events[6]?.kind, 'write_rejected', 'synchronous: the promoted standby has B’s token 2');
    assert.deepEqual(sync.rows.standby, { value: 'B1', lastToken: '2' });
    assert.equal(checkHistory(wire(sync.events)).ok, true);
  });

  test('the shortest way, walked on the database as the Explore page walks it', { timeout: DEADLINE_MS }, async () => {
    const bounds = { holders: 2, writes: 2 };
    const start = {
      rule: { tokens: [], writeWith: 'lease-token' as const },
      row: ROW,
      failover: { replication: 'async' as const },
    };
    const path = stepIndexes(bounds, start, [
      { kind: 'acquire', holder: 'A' },
      { kind: 'write', holder: 'A' },
      { kind: 'promote' },
    ]);
    assert.equal(path.length, 3);
    const walked = await walkOnDatabase({ lab: labOf('async'), bounds, path });
    assert.equal(walked.violation?.findings[0]?.rule, 'acknowledged-write-lost');
    assert.deepEqual(walked.state.row, ROW, 'the promoted standby’s row, as the real copy left it');
    assert.equal(walked.events[0]?.lab, FAILOVER_LAB);
  });

  test('nothing committed: no scratch server is left, and the app’s tables are as before', {
    timeout: DEADLINE_MS,
  }, async () => {
    const before = await snapshot();
    await run('async', { holders: 2, writes: 1 });
    await run('sync', { holders: 2, writes: 1 });
    assert.deepEqual(await snapshot(), before);
    assert.equal(before.scratch, '0');
  });
});

/** The app's tables an exploration could reach, and any scratch server's schema left behind. */
async function snapshot(): Promise<Record<string, string>> {
  const client = newClient();
  await client.connect();
  try {
    const tables: Record<string, string> = {};
    for (const table of ['events', 'labs', 'unguarded_rows', 'protected_rows', 'leases', 'lease_grants']) {
      const { rows } = await client.query(
        `SELECT count(*)::text || '/' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') AS s FROM ${table} t`,
      );
      tables[table] = String(rows[0]?.s);
    }
    const { rows } = await client.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM pg_namespace WHERE nspname LIKE 'explore\\_fo\\_%'",
    );
    tables.scratch = String(rows[0]?.n);
    return tables;
  } finally {
    await client.end();
  }
}
