import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type pg from 'pg';
import { crashPostmaster, startEmbeddedPostgres } from '../lib/launcher/embedded-postgres';
import { startTestCluster, type TestCluster } from '../lib/testing/test-cluster';
import { acquireLease } from './leases';
import { migrate } from './migrate';
import { newClient } from './pool';

/*
 * Tokens must survive an app restart, a clean database restart and a crash (kill -9 of the
 * postmaster): the next token is always greater than every token handed out before. This file runs
 * its own embedded cluster, since it kills it.
 */

const CRASH_CYCLES = 5;
const run = promisify(execFile);

let cluster: TestCluster;
let highestHandedOut = 0;

before(async () => {
  cluster = await startTestCluster('durability');
  await migrate(cluster.url);
});
after(async () => {
  await cluster.dispose();
});

async function connect(url: string): Promise<pg.Client> {
  const client = newClient(url);
  await client.connect();
  return client;
}

/** One grant on a session; the token counts as handed out once the grant's commit returned. */
async function grantOn(session: pg.Client, holder: string): Promise<number> {
  const result = await acquireLease(
    { lab: 'durability', resource: `durability-${holder}`, holder, ttlMs: 100 },
    session,
  );
  assert.equal(result.outcome, 'granted');
  const token = (result as { lease: { token: number } }).lease.token;
  highestHandedOut = Math.max(highestHandedOut, token);
  return token;
}

/** Starts the server again on the same data directory; the test's cluster then points at it. */
async function restart(): Promise<void> {
  const next = await startEmbeddedPostgres({ dataDir: cluster.dataDir });
  assert.ok(next.owned);
  Object.assign(cluster, { url: next.url, port: next.port, postmasterPid: next.postmasterPid, stop: next.stop });
}

describe('the token sequence is durable', () => {
  test('across an app restart: a new process gets a greater token', async () => {
    const env = { ...process.env, DATABASE_URL: cluster.url };
    const args = ['--conditions=react-server', '--import', 'tsx', 'lib/testing/acquire-once.ts'];
    const first = JSON.parse((await run(process.execPath, [...args, 'app-restart', 'one'], { env })).stdout);
    await sleep(150);
    const second = JSON.parse((await run(process.execPath, [...args, 'app-restart', 'two'], { env })).stdout);
    assert.ok(second.token > first.token, `token ${second.token} after restart, ${first.token} before`);
    highestHandedOut = Math.max(highestHandedOut, second.token);
  });

  test('across a clean database restart', async () => {
    const session = await connect(cluster.url);
    for (let i = 0; i < 5; i++) await grantOn(session, `clean-${i}`);
    await session.end();
    const before = highestHandedOut;
    await cluster.stop();
    await restart();
    const after = await connect(cluster.url);
    const token = await grantOn(after, 'after-clean-restart');
    await after.end();
    assert.ok(token > before, `token ${token} after a clean restart, ${before} before`);
  });

  test(`across ${CRASH_CYCLES} crashes (kill -9 of the postmaster) while grants commit and other sessions roll back nextval`, async () => {
    for (let cycle = 1; cycle <= CRASH_CYCLES; cycle++) {
      const granter = await connect(cluster.url);
      const roller = await connect(cluster.url);
      let running = true;
      // Other sessions' nextval calls in transactions that roll back: the load that makes a lone
      // autocommit nextval repeat a token after a crash (../shared/STACK.md).
      const rolling = (async () => {
        while (running) {
          await roller.query('BEGIN');
          await roller.query("SELECT nextval('write_epoch')");
          await roller.query('ROLLBACK');
        }
      })().catch(() => undefined);
      const granting = (async () => {
        for (let i = 0; running; i++) await grantOn(granter, `crash-${cycle}-${i % 4}`);
      })().catch(() => undefined);

      await sleep(150 + Math.random() * 150);
      await crashPostmaster(cluster);
      running = false;
      await Promise.all([rolling, granting]);
      await Promise.all([granter.end().catch(() => undefined), roller.end().catch(() => undefined)]);
      // Backends can outlive a killed postmaster for a moment: count every grant that returned.
      const handedOutBeforeCrash = highestHandedOut;
      assert.ok(handedOutBeforeCrash > 0, 'grants were committed before the crash');

      await restart();
      const after = await connect(cluster.url);
      const token = await grantOn(after, `after-crash-${cycle}`);
      await after.end();
      assert.ok(
        token > handedOutBeforeCrash,
        `cycle ${cycle}: token ${token} after the crash, but ${handedOutBeforeCrash} was handed out before`,
      );
    }
  });
});
