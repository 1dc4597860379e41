import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { isSharedLabId, LAB_IDS, LABS } from '../lib/model/lab/lab-kinds';
import { startTestCluster, type TestCluster } from '../lib/testing/test-cluster';
import { migrate } from './migrate';

/*
 * On a new database every shared lab can be driven at once, before anyone resets it: its row is
 * there. On a cluster of its own, since the other tests' resets would create the rows anyway.
 */

let cluster: TestCluster;
let client: pg.Client;

before(async () => {
  cluster = await startTestCluster('shared-rows');
  await migrate(cluster.url);
  client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
});
after(async () => {
  await client.end();
  await cluster.dispose();
});

test('a new database has the row of every shared lab, at its initial value', async () => {
  const { rows } = await client.query<{ id: string; value: string | null; row_id: number; resource: string }>(
    `SELECT l.id, coalesce(p.value, u.value) AS value, l.row_id, l.resource
       FROM labs l
       LEFT JOIN protected_rows p ON l.kind = 'fenced' AND p.id = l.row_id
       LEFT JOIN unguarded_rows u ON l.kind <> 'fenced' AND u.id = l.row_id AND u.lab = l.id
      WHERE l.visibility = 'shared' ORDER BY l.id`,
  );
  // Every shared lab, each as lib/model/lab/lab-kinds.ts has it: the fenced ones and the broken ones (not
  // "your guard", a private lab only).
  assert.deepEqual(
    rows.map((r) => r.id),
    LAB_IDS.filter(isSharedLabId).sort(),
  );
  for (const row of rows) {
    assert.equal(row.value, 'initial', `the row of the shared lab ${row.id}`);
    const definition = LABS[row.id as keyof typeof LABS];
    assert.deepEqual([row.row_id, row.resource], [definition.rowId, definition.resource]);
  }
});

test('migrating again changes nothing', async () => {
  assert.deepEqual(await migrate(cluster.url), []);
});
