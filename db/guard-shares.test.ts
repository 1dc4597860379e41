import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { guardShare } from '../lib/model/guard/guard-share';
import { INITIAL_ROW_VALUE } from '../lib/supervisor/lab-reset';
import { findGuardAttempt, recordRefusedGuard, type SentBy } from './guard-attempts';
import { enqueueGuardAttack } from './guard-queue';
import { closeLab, createPrivateLab, type LabRecord } from './labs';
import { closePool, getJobsPool, getPool, newClient, newPool } from './pool';

/*
 * A trainee's share of guards a minute, counted by the database for the whole room (0045,
 * db/functions/fl_take_guard_share.sql): two app servers on one database (two pools here, as two
 * servers have) give nobody a second share, even submitting at the same moment; past it the refusal
 * says when to come back and nothing is stored; the minute is the database's, and a new one lets
 * them in again. Each server used to count in its memory (lib/server/guard-attack-slots.ts before
 * 0045): these two servers would have let twelve attacks a minute through, six each.
 */

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3 AND last_token <= $2';
const labs: LabRecord[] = [];
const onError = (error: Error) => console.error('[guard-shares test] idle client error:', error.message);
const servers = [newPool({ max: 6, onIdleError: onError }), newPool({ max: 6, onIdleError: onError })] as const;
const [one, two] = servers;
/** The database owner's connection: only it may move an attempt's time (the app may not: 0043's column grants). */
const owner: pg.Client = newClient();

async function labOf(ownerHash = randomBytes(32).toString('hex')): Promise<{ lab: string; ownerHash: string }> {
  const lab = await createPrivateLab({
    kind: 'your-guard',
    ownerHash,
    openedFrom: `guard-shares-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  labs.push(lab);
  return { lab: lab.id, ownerHash };
}

/** An address of its own per test: the count is the room's, and other tests' attempts are in it. */
const newAddress = () => `198.51.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

/** Its verdict written, as a server's attack would: the owner may send the next (one in line each). */
async function attacked(id: number): Promise<void> {
  await getPool().query(`UPDATE guard_attempts SET outcome = 'passed', verdict = 'held' WHERE id = $1`, [id]);
  await getJobsPool().query(
    'SELECT graphile_worker.complete_jobs(array(SELECT id FROM graphile_worker.jobs WHERE key = $1))',
    [`guard_attempt:${id}`],
  );
}

/** Every attempt of this owner as if sent `seconds` ago, by the database's clock. */
async function sentAgo(ownerHash: string, seconds: number): Promise<void> {
  await owner.query(
    'UPDATE guard_attempts SET created_at = clock_timestamp() - make_interval(secs => $2) WHERE owner_hash = $1',
    [ownerHash, seconds],
  );
}

/** The seconds a refusal says to wait. */
const waitOf = (refusal: string) => Number(/try again in (\d+) s/.exec(refusal)?.[1]);

const stored = async (column: 'owner_hash' | 'address', who: string) =>
  Number(
    (await getPool().query<{ n: string }>(`SELECT count(*) AS n FROM guard_attempts WHERE ${column} = $1`, [who]))
      .rows[0]?.n,
  );

/** Settles every submission: the ones let in and the refusals' words. */
async function settled(submissions: Promise<{ id: number }>[]): Promise<{ ids: number[]; refusals: string[] }> {
  const results = await Promise.allSettled(submissions);
  return {
    ids: results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.id] : [])),
    refusals: results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : [])),
  };
}

before(() => owner.connect());

after(async () => {
  const ids = labs.map((lab) => lab.id);
  await getPool().query(
    `UPDATE guard_attempts SET outcome = 'failed', verdict = 'cleared by a test'
                          WHERE outcome = 'queued' AND lab = ANY($1)`,
    [ids],
  );
  // The jobs are in the job queue's own database: their keys read here, deleted there.
  const { rows } = await getPool().query<{ key: string }>(
    `SELECT 'guard_attempt:' || id AS key FROM guard_attempts WHERE lab = ANY($1)`,
    [ids],
  );
  await getJobsPool().query(
    'SELECT graphile_worker.complete_jobs(array(SELECT id FROM graphile_worker.jobs WHERE key = ANY($1)))',
    [rows.map((row) => row.key)],
  );
  for (const lab of labs) await closeLab(lab.id);
  await owner.end();
  await Promise.all(servers.map((pool) => pool.end()));
  await closePool();
});

test('one owner through two servers: six attacks a minute for the room, not six each; then when to come back', async () => {
  const ada = await labOf();
  const sentBy: SentBy = { address: newAddress(), share: guardShare(6) };
  const answers: string[] = [];
  for (let i = 0; i < 12; i++) {
    const server = i % 2 ? two : one;
    try {
      const attempt = await enqueueGuardAttack({ ...ada, name: 'Ada', statement: SET, sentBy }, server);
      answers.push('in line');
      await attacked(attempt.id);
    } catch (error) {
      answers.push(String(error));
    }
  }
  assert.equal(answers.filter((a) => a === 'in line').length, 6, answers.join('\n'));
  assert.deepEqual(answers.slice(0, 6), Array(6).fill('in line'));
  for (const refusal of answers.slice(6)) {
    assert.match(refusal, /^FencingError: at most 6 attacks a minute: try again in \d+ s \(your statement is kept\)$/);
    // The first of the six leaves the minute then: within this test's few seconds of it.
    assert.ok(waitOf(refusal) > 40 && waitOf(refusal) <= 60, refusal);
  }
  assert.equal(await stored('owner_hash', ada.ownerHash), 6, 'nothing is stored for a refusal');

  // Sent 20 s ago: they leave the minute in 40 s, on the database's clock.
  await sentAgo(ada.ownerHash, 20);
  await assert.rejects(enqueueGuardAttack({ ...ada, name: 'Ada', statement: SET, sentBy }, two), (error: Error) =>
    /^at most 6 attacks a minute: try again in (39|40) s/.test(error.message),
  );
  // Its refused statements are a share of their own: still let in.
  await recordRefusedGuard(
    { ...ada, name: 'Ada', statement: 'UPDATE nope SET x = 1', verdict: 'refused', sentBy },
    one,
  );

  // A minute on, they are let in again.
  await sentAgo(ada.ownerHash, 61);
  const again = await enqueueGuardAttack({ ...ada, name: 'Ada', statement: SET, sentBy }, one);
  assert.equal(again.outcome, 'queued');
});

test('sixteen trainees behind one address at the same moment, through two servers: six when the share is six', async () => {
  // Two a minute each, three times that from one address: sixteen submit at once, eight through each server.
  const address = newAddress();
  const sentBy: SentBy = { address, share: guardShare(2) };
  const { lab } = await labOf();
  const { ids, refusals } = await settled(
    Array.from({ length: 16 }, (_, i) =>
      enqueueGuardAttack(
        { lab, ownerHash: randomBytes(32).toString('hex'), name: `T${i}`, statement: SET, sentBy },
        i % 2 ? two : one,
      ),
    ),
  );
  assert.equal(ids.length, 6, refusals.join('\n'));
  assert.equal(refusals.length, 10);
  for (const refusal of refusals) {
    assert.match(refusal, /^FencingError: at most 6 attacks a minute from your address: try again in (5\d|60) s/);
  }
  assert.equal(await stored('address', address), 6);
});

test('one owner sending twenty refused statements at the same moment through two servers: ten are stored', async () => {
  const ada = await labOf();
  const sentBy: SentBy = { address: newAddress(), share: guardShare(10) };
  const { ids, refusals } = await settled(
    Array.from({ length: 20 }, (_, i) =>
      recordRefusedGuard(
        { ...ada, name: 'Ada', statement: `UPDATE nope${i} SET x = 1`, verdict: 'refused before it ran', sentBy },
        i % 2 ? two : one,
      ),
    ),
  );
  assert.equal(ids.length, 10, refusals.join('\n'));
  for (const refusal of refusals) {
    assert.match(refusal, /^FencingError: at most 10 refused guards a minute: try again in (5\d|60) s/);
  }
  assert.equal(await stored('owner_hash', ada.ownerHash), 10);
});

test('the address is stored for the count, and is not among what an attempt shows', async () => {
  const ada = await labOf();
  const address = newAddress();
  const attempt = await enqueueGuardAttack(
    { ...ada, name: 'Ada', statement: SET, sentBy: { address, share: guardShare(6) } },
    one,
  );
  assert.ok(!JSON.stringify(attempt).includes(address));
  assert.ok(!JSON.stringify(await findGuardAttempt(attempt.id)).includes(address));
  const { rows } = await getPool().query('SELECT address, counted_as FROM guard_attempts WHERE id = $1', [attempt.id]);
  assert.deepEqual(rows[0], { address, counted_as: 'attack' });
});
