import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listEvents } from '../../db/events';
import { findLab, type LabRecord, readLabFork } from '../../db/labs';
import { recordExpiredLeases } from '../../db/leases';
import { closePool, newClient } from '../../db/pool';
import { whatIfPending } from '../../db/what-if-jobs';
import { toWire } from '../model/core/wire';
import { serializeHistory } from '../model/history/history-file';
import { rowAt } from '../model/history/replay';
import type { WhatIf } from '../model/history/what-if';
import { MAX_PRIVATE_LABS_PER_OWNER } from '../model/lab/lab-input-limits';
import { labTitle } from '../model/lab/lab-instance';
import { buildTimeline } from '../model/timeline/timeline';
import { getSupervisor } from '../supervisor/supervisor';
import { runWhatIf } from '../supervisor/what-if-run';
import { waitFor } from '../testing/wait';
import { newOwnerSecret, ownerHashOf } from './access';
import { JobRunner } from './job-runner';
import { getPrivateLabs } from './private-labs';
import { forkWhatIf, startWhatIf } from './what-if';
import { runWhatIfJob } from './what-if-job';

/*
 * A what-if fork runs the pause story again, for real, in a new private lab, and never touches the
 * original: the original's export is the same bytes before and after the fork has run to its end.
 */

// The forks' runs are jobs: this process is one app server of the room, taking them from the queue.
const runner = new JobRunner(1);
before(() => runner.start());

after(async () => {
  await runner.close();
  await getSupervisor().shutdown();
  await closePool();
});

/** Until the fork's run has been taken from the queue and has played out. */
async function forkRunOver(lab: string): Promise<void> {
  await waitFor(async () => !(await whatIfPending(lab)), `the fork ${lab}'s run to end`, { timeoutMs: 90_000 });
}

const ADDRESS = 'what-if-test';
const EXPORTED_AT = new Date(Date.UTC(2026, 11, 1, 7, 0, 0));

async function exportOf(lab: LabRecord): Promise<Buffer> {
  const events = (await listEvents({ lab: lab.id })).map(toWire);
  const text = serializeHistory({
    lab: { id: lab.id, kind: lab.kind, title: labTitle(lab) },
    events,
    exportedAt: EXPORTED_AT,
  });
  return Buffer.from(text, 'utf8');
}

describe('a what-if fork', () => {
  test('runs in a lab of its own with new tokens, and leaves the original’s export byte-identical', async () => {
    const ownerSecret = newOwnerSecret();
    const caller = { credentials: { ownerSecret }, ownerSecret, address: ADDRESS };
    // The original: the pause story for real, A frozen past its 1 s lease, B taking over.
    const original = await getPrivateLabs().open('fenced', { ownerHash: ownerHashOf(ownerSecret), address: ADDRESS });
    const story: WhatIf = {
      lab: original.id,
      atMs: 0,
      pauseMs: 2_500,
      leaseTtlMs: 1_000,
      renewEveryMs: 300,
      fencing: 'fenced',
    };
    await runWhatIf(original, story);
    // The original ends: its workers are stopped, and its last lease (B's) runs out by the database's
    // clock, recorded by the server's own expiry recorder. Only then is its history complete.
    await waitFor(async () => {
      await recordExpiredLeases();
      return (await listEvents({ lab: original.id })).some((e) => e.actor === 'B' && e.kind === 'lease_expired');
    }, "the original's last lease to run out");
    const originalEvents = (await listEvents({ lab: original.id })).map(toWire);
    const writeB = originalEvents.find((e) => e.actor === 'B' && e.kind === 'write_accepted');
    assert.ok(writeB, 'B took over and wrote in the original');
    // Each lane ends where the run stopped its worker: ten minutes on, B's lease, run out after the
    // stop, draws no "believes it holds" band, and nothing of A's or B's still grows.
    const lastAt = originalEvents.at(-1)?.at ?? 0;
    assert.deepEqual(
      originalEvents.filter((e) => e.kind === 'worker_stopped').map((e) => [e.actor, e.detail.reason]),
      [
        ['A', 'the story was over'],
        ['B', 'the story was over'],
      ],
    );
    for (const lane of buildTimeline(originalEvents, lastAt + 600_000).lanes) {
      const growing = [...lane.beliefs, ...lane.pauses].filter((mark) => mark.open || mark.to > lastAt);
      assert.deepEqual(growing, [], `${lane.holder}'s lane ends with its worker`);
    }
    const before = await exportOf(original);

    // From the moment B wrote: what if the lease were 4 s and the pause 1 s, without fencing?
    const atMs = writeB.at - (originalEvents[0]?.at ?? 0);
    const fork = await startWhatIf(
      { lab: original.id, atMs, pauseMs: 1_000, leaseTtlMs: 4_000, renewEveryMs: 500, fencing: 'no-fencing' },
      caller,
    );
    await forkRunOver(fork.id);
    const afterFork = await exportOf(original);
    const added = (await listEvents({ lab: original.id })).filter((e) => e.id > (originalEvents.at(-1)?.id ?? 0));
    assert.equal(
      Buffer.compare(before, afterFork),
      0,
      `the original export is byte-identical; events since: ${JSON.stringify(added.map((e) => [e.actor, e.kind, e.detail]))}`,
    );
    assert.equal(afterFork.toString('utf8'), before.toString('utf8'));

    const forkLab = await findLab(fork.id);
    assert.equal(forkLab?.kind, 'no-fencing');
    assert.equal(forkLab?.visibility, 'private');
    const record = await readLabFork(fork.id);
    const rowThen = rowAt(originalEvents, writeB.at);
    assert.deepEqual(record?.startRow, { value: rowThen?.value, lastToken: rowThen?.lastToken });
    assert.equal(record?.from, original.id);

    // The fork's own story: new tokens past every token the original saw; a 1 s pause inside a 4 s
    // lease, so A wakes still holding it and its late write is accepted, and B never takes over.
    const forkEvents = await listEvents({ lab: fork.id });
    const grantA = forkEvents.find((e) => e.actor === 'A' && e.kind === 'lease_acquired');
    assert.ok((grantA?.token ?? 0) > (record?.highestTokenSeen ?? Number.POSITIVE_INFINITY));
    const woke = forkEvents.find((e) => e.actor === 'A' && e.kind === 'pause_ended');
    assert.ok(woke);
    const late = forkEvents.find((e) => e.actor === 'A' && e.kind === 'write_accepted' && e.id > woke.id);
    assert.ok(late, "A's write after the pause was accepted");
    assert.equal(
      forkEvents.some((e) => e.actor === 'B' && e.kind === 'lease_acquired'),
      false,
      'B never got the lease',
    );
  });

  test('run again (as after its server died), the story is told once more from the fork’s moment, not on top of the first', async () => {
    const ownerSecret = newOwnerSecret();
    const caller = { credentials: { ownerSecret }, ownerSecret, address: ADDRESS };
    const original = await getPrivateLabs().open('fenced', { ownerHash: ownerHashOf(ownerSecret), address: ADDRESS });
    await runWhatIf(original, { pauseMs: 2_500, leaseTtlMs: 1_000, renewEveryMs: 300 });
    const originalEvents = (await listEvents({ lab: original.id })).map(toWire);
    const writeB = originalEvents.find((e) => e.actor === 'B' && e.kind === 'write_accepted');
    assert.ok(writeB, 'B took over and wrote in the original');
    const atMs = writeB.at - (originalEvents[0]?.at ?? 0);
    const fork = await startWhatIf(
      { lab: original.id, atMs, pauseMs: 1_000, leaseTtlMs: 4_000, renewEveryMs: 500, fencing: 'fenced' },
      caller,
    );
    await forkRunOver(fork.id);
    const first = await listEvents({ lab: fork.id });
    assert.ok(
      first.some((e) => e.actor === 'A' && e.kind === 'write_accepted'),
      'the first run told the story',
    );

    await runWhatIfJob({ lab: fork.id });
    const second = await listEvents({ lab: fork.id });
    const lastOfFirst = first.at(-1)?.id ?? 0;
    assert.ok(
      second.every((e) => e.id > lastOfFirst),
      'the first telling is gone: the lab was reset to the fork’s moment',
    );
    const count = (actor: string, kind: string) => second.filter((e) => e.actor === actor && e.kind === kind).length;
    assert.deepEqual(
      [count('A', 'worker_started'), count('B', 'worker_started'), count('A', 'pause_started')],
      [1, 1, 1],
      'one telling: each worker started once, A frozen once',
    );
    const firstGrant = first.find((e) => e.actor === 'A' && e.kind === 'lease_acquired')?.token ?? 0;
    const secondGrant = second.find((e) => e.actor === 'A' && e.kind === 'lease_acquired')?.token ?? 0;
    assert.ok(secondGrant > firstGrant, `tokens never go back: ${secondGrant} > ${firstGrant}`);
    assert.ok(
      second.some((e) => e.actor === 'A' && e.kind === 'write_accepted'),
      'the second run told the story',
    );
  });

  test('is refused, changing nothing, for settings out of bounds or a lab the browser may not see', async () => {
    const stranger = newOwnerSecret();
    const caller = { credentials: { ownerSecret: stranger }, ownerSecret: stranger, address: ADDRESS };
    const base = { lab: 'fenced', atMs: 0, pauseMs: 1_000, leaseTtlMs: 3_000, renewEveryMs: 1_000, fencing: 'fenced' };
    const refused = async (input: unknown) => {
      const result = await forkWhatIf(input, caller);
      assert.equal(result.ok, false);
      return result.ok ? '' : result.error.message;
    };
    assert.match(await refused({ ...base, pauseMs: 60_000 }), /pause length must be at most 20 s/);
    assert.match(await refused({ ...base, leaseTtlMs: 100 }), /lease TTL must be at least 0.5 s/);
    assert.match(await refused({ ...base, renewEveryMs: 3_000 }), /renew interval must be shorter than the lease TTL/);
    assert.match(await refused({ ...base, fencing: 'maybe' }), /fencing must be one of/);
    assert.match(await refused({ ...base, lab: '../etc' }), /lab must be one of/);
    // Another browser's private lab does not exist for this one.
    const owner = newOwnerSecret();
    const theirs = await getPrivateLabs().open('fenced', { ownerHash: ownerHashOf(owner), address: ADDRESS });
    assert.match(await refused({ ...base, lab: theirs.id }), /no lab/);
    assert.equal((await listEvents({ lab: theirs.id })).length, 0);
  });
  test('refused by the limits before it reads anything of the original’s history', { timeout: 60_000 }, async () => {
    const ownerSecret = newOwnerSecret();
    const owner = { ownerHash: ownerHashOf(ownerSecret), address: 'what-if-refused' };
    const caller = { credentials: { ownerSecret }, ownerSecret, address: owner.address };
    const mine: LabRecord[] = [];
    for (let i = 0; i < MAX_PRIVATE_LABS_PER_OWNER; i++) mine.push(await getPrivateLabs().open('fenced', owner));
    const original = mine[0] as LabRecord;
    // Nobody may read the events table while this transaction holds it: a fork that read the
    // original's history before its limits would wait here, and this test would time out.
    const blocker = newClient();
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE');
      const w: WhatIf = {
        lab: original.id,
        atMs: 0,
        pauseMs: 1_000,
        leaseTtlMs: 3_000,
        renewEveryMs: 1_000,
        fencing: 'fenced',
      };
      await assert.rejects(startWhatIf(w, caller), (error: Error) => {
        assert.match(error.message, new RegExp(`you already have ${MAX_PRIVATE_LABS_PER_OWNER} private labs open`));
        return true;
      });
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    for (const lab of mine) await getPrivateLabs().close(lab, 'test over');
  });
});
