import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { listEvents } from '../../../db/events';
import { closePool } from '../../../db/pool';
import { checkHistory } from '../../model/checker/checker';
import { toWire } from '../../model/core/wire';
import { FAILOVER_LAB, failoverStepsOf } from '../../model/failover/failover-events';
import { failoverProgress, failoverWalkthrough } from '../../model/failover/failover-walkthrough';
import { closeFailoverLab, getFailoverLab } from './failover-lab';
import { processesOf } from './pg-server-process';

/*
 * The lab's controls, in the walkthrough's order, on a real pair; the history read back from the
 * app's database (the lab's events) after the pair is gone, and judged by the one checker.
 */

async function history() {
  const events = (await listEvents({ lab: FAILOVER_LAB })).map(toWire);
  return {
    events,
    steps: failoverStepsOf(events),
    rules: checkHistory(events)
      .violations.flatMap((v) => v.kinds)
      .sort(),
  };
}

// The server's one failover lab keeps the directory it was first given: one for the whole file.
let parent = '';
before(async () => {
  parent = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-failover-lab-'));
});
after(async () => {
  await closeFailoverLab();
  await closePool();
  await rm(parent, { recursive: true, force: true });
});

test('the asynchronous walkthrough through the lab’s controls; reset leaves no process and no directory', async () => {
  const lab = getFailoverLab(parent);
  try {
    await lab.start('async');
    await lab.grant('A');
    assert.equal((await lab.write('A')).accepted, true);
    await lab.cut();
    const b = await lab.grant('B');
    assert.equal(b.waiting, false, 'the primary acknowledges B’s grant at once');
    assert.equal((await lab.write('B')).accepted, true);
    await lab.killPrimary();
    await lab.promote();
    const late = await lab.write('A');
    assert.equal(late.accepted, true, 'A’s late write is accepted on the promoted standby');
    await lab.grant('C');

    const view = await lab.view();
    assert.equal(view.promoted, true);
    const promoted = view.servers.find((s) => s.role === 'promoted standby');
    assert.equal(promoted?.row?.lastToken, view.holders.A.token);
    const told = await history();
    assert.equal(failoverProgress(failoverWalkthrough('async'), told.events), 10, 'every step of the walkthrough done');
    assert.deepEqual(
      told.events.filter((e) => e.kind === 'lease_acquired').map((e) => e.actor),
      ['A', 'B', 'C'],
      'the holders’ grants are the lab’s lease_acquired events',
    );

    const pairDir = (await readdir(parent))[0];
    assert.ok(pairDir);
    await lab.reset();
    assert.deepEqual(
      [
        ...(await processesOf(path.join(parent, pairDir, 'primary'))),
        ...(await processesOf(path.join(parent, pairDir, 'standby'))),
      ],
      [],
      'no process of the pair after reset',
    );
    assert.deepEqual(await readdir(parent), [], 'the pair’s directories are removed on reset');
    const kept = await history();
    assert.deepEqual(
      kept.rules,
      ['acknowledged-write-lost', 'acknowledged-write-lost', 'stale-write-accepted'],
      'the history in the app’s database outlives the pair',
    );
    assert.equal(kept.events.at(-1)?.kind, 'pair_stopped', 'the reset is the history’s last step');
  } finally {
    await closeFailoverLab();
  }
});

test('synchronous: B’s grant answers “waiting” while the wire is cut, and is granted after the heal', async () => {
  const lab = getFailoverLab(parent);
  try {
    await lab.start('sync');
    await lab.grant('A');
    await lab.write('A');
    await lab.cut();
    assert.deepEqual(await lab.grant('B'), { waiting: true });
    assert.equal((await lab.view()).holders.B.waiting, true);
    await assert.rejects(lab.write('B'), /B's grant is still waiting for the standby: heal replication/);
    await lab.heal();
    assert.ok(
      (await lab.view()).holders.B.token,
      'the heal answers once B holds its token (the standby has the grant)',
    );
    assert.equal((await lab.write('B')).accepted, true);
    await lab.killPrimary();
    await lab.promote();
    assert.equal((await lab.write('A')).accepted, false);
    const told = await history();
    assert.deepEqual(told.rules, []);
    assert.equal(failoverProgress(failoverWalkthrough('sync'), told.events), 10);
    assert.equal(told.events[0]?.kind, 'pair_started', 'a start begins a new story: the last one’s events are gone');
  } finally {
    await closeFailoverLab();
  }
});

test('with the primary down and the standby not promoted, a grant or a write is refused in words', async () => {
  const lab = getFailoverLab(parent);
  try {
    // The last test's pair ended without a reset (as with a server that stopped): a reset ends its story.
    assert.notEqual((await history()).events.at(-1)?.kind, 'pair_stopped');
    await lab.reset();
    assert.equal((await history()).events.at(-1)?.kind, 'pair_stopped');
    await lab.reset();
    assert.equal(
      (await history()).events.filter((e) => e.kind === 'pair_stopped').length,
      1,
      'a story is stopped once',
    );
    await assert.rejects(lab.grant('A'), /start the pair first/);
    await lab.start('async');
    await lab.grant('A');
    await assert.rejects(lab.grant('A'), /A holds the lease already \(token \d+\)/);
    await lab.killPrimary();
    await assert.rejects(
      lab.write('A'),
      /the primary is down and the standby is not promoted yet: no server takes writes/,
    );
    await assert.rejects(lab.grant('B'), /the primary is down/);
    await lab.promote();
    assert.equal((await lab.write('A')).accepted, true);
  } finally {
    await closeFailoverLab();
  }
});
