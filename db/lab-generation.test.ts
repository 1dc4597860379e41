import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { isFencingError } from '../lib/model/core/errors';
import { requireToken } from '../lib/model/core/token';
import { INITIAL_ROW_VALUE, resetLabData } from '../lib/supervisor/lab-reset';
import { backendPid, waitForBlockedBy } from '../lib/testing/lock-waits';
import { writeWithoutFencing } from './broken-labs';
import { appendEvent, listEvents } from './events';
import { fencedWrite, readProtectedRow } from './fenced-write';
import { RESET_LOCK_WAIT_MS, readLabGeneration } from './lab-generation';
import { closeLab, createPrivateLab, type LabRecord } from './labs';
import { acquireLease, readLease, releaseLease, renewLease } from './leases';
import { closePool, getPool, newClient } from './pool';

/*
 * A reset is final for every worker: a worker carries the generation of the lab it joined, and the
 * database refuses every lease, write and event it sends once the lab has been reset since, and the
 * reset is one transaction. Private labs of their own, so that no other test's lab is touched.
 */

const opened: string[] = [];
after(async () => {
  // Closed, so that they never count against the private-lab caps of the tests that follow.
  for (const id of opened) await closeLab(id);
  await closePool();
});

const TTL_MS = 10_000;

async function openLab(kind: 'fenced' | 'no-fencing' = 'fenced'): Promise<LabRecord> {
  const lab = await createPrivateLab({
    kind,
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `lab-generation-test-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
  opened.push(lab.id);
  return lab;
}

function refusedAsReset(error: unknown): boolean {
  assert.ok(isFencingError(error, 'lab_reset'), `expected lab_reset, got ${String(error)}`);
  assert.match((error as Error).message, /was reset since this worker joined it/);
  return true;
}

/** Everything of the lab as a reader would see it: the history, the row, the lease. */
async function snapshot(lab: LabRecord) {
  return {
    events: (await listEvents({ lab: lab.id })).map((e) => `${e.id} ${e.actor} ${e.kind} ${e.token ?? ''}`),
    row: await readProtectedRow(lab.rowId),
    lease: await readLease(lab.resource),
    generation: await readLabGeneration(lab.id),
  };
}

describe('a worker from before a reset is refused by the database', () => {
  test('a stale generation: acquire, renew, release, the fenced write and an event are each refused', async () => {
    const lab = await openLab();
    const joined = await readLabGeneration(lab.id);
    const as = { resource: lab.resource, holder: 'Old', ttlMs: TTL_MS, lab: lab.id, generation: joined };
    const granted = await acquireLease(as);
    assert.equal(granted.outcome, 'granted', 'in its own run it works');
    if (granted.outcome !== 'granted') return;
    const token = granted.lease.token;
    const written = await fencedWrite({ rowId: lab.rowId, value: 'Old-1', token, actor: 'Old', ...as });
    assert.equal(written.outcome, 'accepted');

    await resetLabData(lab);
    assert.equal(await readLabGeneration(lab.id), joined + 1, 'the reset moved the lab to its next run');
    const fresh = await snapshot(lab);
    assert.deepEqual(fresh.events, [], 'the new run starts with an empty history');
    assert.equal(fresh.row?.value, INITIAL_ROW_VALUE);

    // The old worker never heard of the reset and carries on with what it believes.
    await assert.rejects(acquireLease(as), refusedAsReset);
    await assert.rejects(renewLease({ ...as, token }), refusedAsReset);
    await assert.rejects(releaseLease({ ...as, token }), refusedAsReset);
    await assert.rejects(
      fencedWrite({ rowId: lab.rowId, value: 'Old-2', token, actor: 'Old', ...as }),
      refusedAsReset,
      'a write refused although its token is newer than the row would need: the reset is final',
    );
    await assert.rejects(
      appendEvent(getPool(), { lab: lab.id, actor: 'Old', kind: 'pause_ended' }, { generation: joined }),
      refusedAsReset,
    );
    assert.deepEqual(await snapshot(lab), fresh, 'nothing of the old worker landed in the new run');

    // A worker that joins the new run works as before.
    const now = { ...as, holder: 'New', generation: joined + 1 };
    assert.equal((await acquireLease(now)).outcome, 'granted');
  });

  test("a stale write that the fenced write would let through (its token beats the row's) is refused too", async () => {
    const lab = await openLab();
    const joined = await readLabGeneration(lab.id);
    await resetLabData(lab);
    // A token minted after the reset: the fenced write alone would accept it, the generation does not.
    const fresh = await acquireLease({ lab: lab.id, resource: `${lab.resource}-other`, holder: 'X', ttlMs: TTL_MS });
    assert.equal(fresh.outcome, 'granted');
    if (fresh.outcome !== 'granted') return;
    const write = { rowId: lab.rowId, value: 'Old', token: fresh.lease.token, actor: 'Old', lab: lab.id };
    await assert.rejects(fencedWrite({ ...write, generation: joined }), refusedAsReset);
    assert.equal((await readProtectedRow(lab.rowId))?.value, INITIAL_ROW_VALUE);
  });

  test("a broken lab's write is refused the same way: resets are not one of its mistakes", async () => {
    const lab = await openLab('no-fencing');
    const joined = await readLabGeneration(lab.id);
    await resetLabData(lab);
    const session = newClient();
    await session.connect();
    try {
      await assert.rejects(
        writeWithoutFencing(
          {
            lab: lab.id,
            rowId: lab.rowId,
            value: 'Old',
            token: requireToken(1),
            actor: 'Old',
            generation: joined,
            criticalWindow: async () => undefined,
          },
          session,
        ),
        refusedAsReset,
      );
    } finally {
      await session.end();
    }
    const { rows } = await getPool().query('SELECT value FROM unguarded_rows WHERE id = $1', [lab.rowId]);
    assert.equal(rows[0]?.value, INITIAL_ROW_VALUE);
    assert.deepEqual(await listEvents({ lab: lab.id }), []);
  });

  test('a worker transaction in flight when the reset comes: the reset waits for it, then wipes it', async () => {
    const lab = await openLab();
    const joined = await readLabGeneration(lab.id);
    const worker = newClient();
    await worker.connect();
    try {
      // A worker's transaction that passed its check and has not committed yet.
      await worker.query('BEGIN');
      await worker.query('SELECT lab_generation_current($1, $2)', [lab.id, joined]);
      let resetDone = false;
      const reset = resetLabData(lab).then(() => {
        resetDone = true;
      });
      // Asked once the reset's session waits on the worker's transaction, as the database shows.
      await waitForBlockedBy(await backendPid(worker), 'the reset to wait on the row');
      assert.equal(resetDone, false, 'the reset waits for the worker statement in flight');
      await appendEvent(worker, { lab: lab.id, actor: 'Old', kind: 'write_sent' }, { generation: joined });
      await worker.query('COMMIT');
      await reset;
      assert.deepEqual(await listEvents({ lab: lab.id }), [], 'what it committed went with the old run');
      await assert.rejects(
        appendEvent(worker, { lab: lab.id, actor: 'Old', kind: 'write_sent' }, { generation: joined }),
        refusedAsReset,
      );
    } finally {
      await worker.end();
    }
  });

  test('a worker frozen in the middle of a transaction does not hold the reset forever: its session is ended', async () => {
    const lab = await openLab();
    const joined = await readLabGeneration(lab.id);
    const frozen = newClient();
    await frozen.connect();
    try {
      // Passed its check and then stopped (SIGSTOP between two statements): it never commits.
      await frozen.query('BEGIN');
      await frozen.query('SELECT lab_generation_current($1, $2)', [lab.id, joined]);
      const started = Date.now();
      await resetLabData(lab);
      const tookMs = Date.now() - started;
      assert.ok(tookMs >= RESET_LOCK_WAIT_MS, `the reset waited for it first (${tookMs} ms)`);
      assert.equal(await readLabGeneration(lab.id), joined + 1, 'and then reset the lab');
      await assert.rejects(frozen.query('SELECT 1'), /terminat|connection/i, 'its session was ended');
    } finally {
      await frozen.end().catch(() => undefined);
    }
  });
});

describe('the reset is one transaction', () => {
  test('a reset that dies half-way (its connection cancelled while it waits) leaves the lab as it was', async () => {
    const lab = await openLab();
    const generation = await readLabGeneration(lab.id);
    const as = { resource: lab.resource, holder: 'A', ttlMs: 60_000, lab: lab.id, generation };
    const granted = await acquireLease(as);
    assert.equal(granted.outcome, 'granted');
    if (granted.outcome !== 'granted') return;
    await fencedWrite({ rowId: lab.rowId, value: 'A-1', token: granted.lease.token, actor: 'A', ...as });
    const before = await snapshot(lab);

    // Another session holds the lab's row: the reset bumps the generation and clears the lease,
    // then waits for the row. Its backend is cancelled there, in the middle.
    const blocker = newClient();
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM protected_rows WHERE id = $1 FOR UPDATE', [lab.rowId]);
      const reset = resetLabData(lab);
      const outcome = reset.then(
        () => 'reset',
        (error: unknown) => error,
      );
      const waiting = await waitForBlockedBy(await backendPid(blocker), 'the reset to wait on the row');
      // As the owner (the blocker's own session): the app role may not cancel the owner's queries.
      await blocker.query('SELECT pg_cancel_backend($1)', [waiting]);
      const failed = await outcome;
      assert.notEqual(failed, 'reset', 'the reset failed');
      assert.match(String((failed as Error).message), /cancel/);
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    assert.deepEqual(await snapshot(lab), before, 'generation, lease, row and history are as they were');
    // And the worker of that run carries on.
    const renewed = await renewLease({ ...as, token: granted.lease.token });
    assert.equal(renewed.outcome, 'renewed');
  });
});

test('closing a private lab ends its run: a worker still out there is refused by the database', async () => {
  const lab = await openLab('no-fencing');
  const joined = await readLabGeneration(lab.id);
  const as = { resource: lab.resource, holder: 'Late', ttlMs: TTL_MS, lab: lab.id, generation: joined };
  assert.equal((await acquireLease(as)).outcome, 'granted', 'in its own run it works');

  await closeLab(lab.id);
  const closedHistory = (await snapshot(lab)).events;
  assert.equal(await readLease(lab.resource), undefined, 'the closed lab released its lease');
  await assert.rejects(acquireLease(as), refusedAsReset);
  await assert.rejects(
    appendEvent(getPool(), { lab: lab.id, actor: 'Late', kind: 'write_sent' }, { generation: joined }),
    refusedAsReset,
  );
  assert.deepEqual((await snapshot(lab)).events, closedHistory, 'the closed lab’s history is as it was closed');
});
