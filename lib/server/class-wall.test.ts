import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { claimGuardAttempt, enqueueGuardAttack, finishGuardAttempt, GUARD_ATTACK_TASK } from '@/db/guard-queue';
import { closePool, getJobsPool } from '@/db/pool';
import { type WallAttempt, wallWords } from '@/lib/model/guard/class-wall';
import { guardShare } from '@/lib/model/guard/guard-share';
import { endListenSessions } from '@/lib/testing/end-listen-sessions';
import { type HeldJobs, holdJobs } from '@/lib/testing/held-jobs';
import { waitFor } from '@/lib/testing/wait';
import { newOwnerSecret, ownerHashOf, trainerKey, trainerProofOf } from './access';
import { streamWall, wallAttemptsFor } from './class-wall';

/*
 * The class wall while guards wait in the room's line (issue 24): each queued attempt with its place
 * (0 = being attacked) read from the queue, and the live feed sending an attempt again as it is
 * claimed and gets its verdict. No app server's runner runs here: a pool of the test's takes each job
 * (lib/testing/held-jobs.ts) and the test claims and finishes the
 * attempts as a server would, so the places are the test's to set.
 */

const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
// Any lab's row takes an attempt: the shared fenced lab, whose workers this test never starts.
const LAB = 'fenced';
const STATEMENT = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3 AND last_token <= $2';
const owners = [newOwnerSecret(), newOwnerSecret(), newOwnerSecret()];
const finished = new Set<number>();
const claims = new Map<number, number>();

async function finish(id: number, verdict: string) {
  const runToken = claims.get(id) ?? (await claimGuardAttempt(id, 'class-wall.test'))?.runToken;
  assert.ok(runToken, `attempt ${id} claimed`);
  assert.ok(await finishGuardAttempt(id, runToken, { outcome: 'violation', verdict }));
  finished.add(id);
}

const held: HeldJobs[] = [];

/** As a server's runner does: its pool takes the job (the oldest in line), then the job claims the attempt. */
async function lockAndClaim(id: number) {
  const server = await holdJobs([GUARD_ATTACK_TASK]);
  held.push(server);
  assert.equal(await server.taken(), `guard_attempt:${id}`);
  const claim = await claimGuardAttempt(id, 'class-wall.test');
  assert.ok(claim);
  claims.set(id, claim.runToken);
}

after(async () => {
  await endListenSessions();
  await closePool();
});

test('the wall shows each queued attempt in line or being attacked, and sends it again as it moves', async (t) => {
  const attempts = [];
  for (const [i, secret] of owners.entries()) {
    attempts.push(
      await enqueueGuardAttack({
        lab: LAB,
        ownerHash: ownerHashOf(secret),
        name: `Q${i}`,
        statement: STATEMENT,
        sentBy: { address: '192.0.2.25', share: guardShare(100) },
      }),
    );
  }
  const [first, second, third] = attempts.map((attempt) => attempt.id) as [number, number, number];
  t.after(async () => {
    for (const id of [first, second, third]) if (!finished.has(id)) await finish(id, 'cleared by the test');
    // The held ones complete; no runner of a later test is to pick up the others.
    for (const server of held) await server.stop();
    await getJobsPool().query(
      'SELECT graphile_worker.complete_jobs(array(SELECT id FROM graphile_worker.jobs WHERE key = ANY($1)))',
      [[first, second, third].map((id) => `guard_attempt:${id}`)],
    );
  });
  await lockAndClaim(first);

  const mine = (wall: WallAttempt[]) => wall.filter((row) => [first, second, third].includes(row.id));
  const rows = mine(await wallAttemptsFor(TRAINER)).sort((a, b) => a.id - b.id);
  assert.deepEqual(
    rows.map((row) => [row.id, row.outcome, wallWords(row)]),
    [
      [first, 'queued', '⏳ being attacked'],
      [second, 'queued', '⏳ in line'],
      [third, 'queued', '⏳ in line'],
    ],
  );
  const [attacked, next, last] = rows as [WallAttempt, WallAttempt, WallAttempt];
  assert.equal(attacked.queue?.place, 0);
  assert.ok((next.queue?.place ?? 0) >= 1, JSON.stringify(next.queue));
  assert.equal(last.queue?.place, (next.queue?.place ?? 0) + 1, 'first come, first served');
  for (const row of rows) assert.ok((row.queue?.estimateSeconds ?? 0) >= 1, JSON.stringify(row.queue));

  // A trainee sees only their own, with its place.
  const own = await wallAttemptsFor({ ownerSecret: owners[2] as string });
  assert.deepEqual(
    own.map((row) => [row.id, row.queue?.place]),
    [[third, last.queue?.place]],
  );

  // Live: the second's claim and then its verdict come again, as the same attempt.
  const sent: WallAttempt[] = [];
  const stop = await streamWall(
    TRAINER,
    (message) => {
      if (message.event === 'attempt' && 'data' in message) sent.push(message.data as WallAttempt);
    },
    () => undefined,
  );
  try {
    await lockAndClaim(second);
    await waitFor(() => sent.some((row) => row.id === second && row.queue?.place === 0), 'the claim, sent again');
    await finish(second, 'your guard let token 9 overwrite token 10');
    await waitFor(
      () => sent.some((row) => row.id === second && row.outcome === 'violation'),
      'the verdict, sent again',
    );
    const verdict = sent.find((row) => row.id === second && row.outcome === 'violation');
    assert.equal(verdict?.queue, undefined);
    assert.equal(wallWords(verdict as WallAttempt), '✗ your guard let token 9 overwrite token 10');
  } finally {
    stop();
  }
});
