import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { appendEvent } from '@/db/events';
import { claimGuardAttempt, enqueueGuardAttack, finishGuardAttempt, GUARD_ATTACK_TASK } from '@/db/guard-queue';
import { closeLab, createPrivateLab, labJoinKey } from '@/db/labs';
import { closePool, getJobsPool, newClient } from '@/db/pool';
import { runWords, type WallClientRun } from '@/lib/model/checker/client-runs';
import { type WallAttempt, wallWords } from '@/lib/model/guard/class-wall';
import { guardShare } from '@/lib/model/guard/guard-share';
import { endListenSessions } from '@/lib/testing/end-listen-sessions';
import { type HeldJobs, holdJobs } from '@/lib/testing/held-jobs';
import { waitFor } from '@/lib/testing/wait';
import { testWorkerLineUrl } from '@/lib/testing/worker-line';
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

test("a client run's row goes from running to silent when its runner stops beating, and to its end, without a reload (issue 36)", async (t) => {
  const lab = (
    await createPrivateLab({
      kind: 'no-fencing',
      ownerHash: randomBytes(32).toString('hex'),
      openedFrom: `class-wall-${randomBytes(4).toString('hex')}`,
      initialValue: 'initial',
      opensPerAddress: 12,
      opensWindowMs: 1,
    })
  ).id;
  const line = newClient(await testWorkerLineUrl({ who: `class-wall-${process.pid}`, lab }));
  await line.connect();
  t.after(async () => {
    await line.end();
    await closeLab(lab);
  });
  const sent: WallClientRun[] = [];
  const stop = await streamWall(
    TRAINER,
    (message) => {
      if (message.event === 'client' && 'data' in message) sent.push(message.data as WallClientRun);
    },
    () => undefined,
  );
  try {
    // A person's runner joins (its first beat) and starts their program as lane A.
    const me = { lab, name: 'A', instance: randomBytes(12).toString('hex') };
    const { rows } = await line.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
      lab,
      me.name,
      me.instance,
      JSON.stringify({ name: me.name }),
      await labJoinKey(lab),
    ]);
    assert.equal(rows[0]?.refusal ?? null, null);
    const detail = { remote: true, exec: 'python3 mine.py' };
    await appendEvent(line, { lab, actor: 'A', kind: 'worker_started', detail }, { as: me });
    const started = await waitFor(
      () => sent.find((run) => run.lab === lab && run.state === 'running'),
      'the run sent as running',
    );
    assert.equal(runWords(started), '▶ running');

    // Its runner says nothing more (killed without a word, its machine asleep): no row of it changes,
    // so no NOTIFY; the wall sends it again once its heartbeat is out of the window.
    const silent = await waitFor(
      () => sent.find((run) => run.id === started.id && run.state === 'silent'),
      'the run sent again as silent',
      { timeoutMs: 20_000 },
    );
    assert.match(runWords(silent), /^… no word from its runner/);

    // Its end, recorded in its own words, is sent as it commits.
    await appendEvent(
      line,
      { lab, actor: 'A', kind: 'worker_stopped', detail: { ...detail, reason: 'your program exited with code 0' } },
      { as: me },
    );
    const ended = await waitFor(
      () => sent.find((run) => run.id === started.id && run.state === 'ended'),
      'the run sent again as ended',
    );
    assert.equal(runWords(ended), '■ your program exited with code 0 · ✓ no fault seen');
  } finally {
    stop();
  }
});
