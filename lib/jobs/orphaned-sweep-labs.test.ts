import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { listEvents } from '../../db/events';
import { createPrivateLab, findLab, type LabRecord } from '../../db/labs';
import { closePool } from '../../db/pool';
import { processRunOf } from '../os/processes';
import { getSupervisor } from '../supervisor/supervisor';
import {
  cellLabOpener,
  cellLabOwner,
  closeCellLab,
  closeOpenCellLabs,
  closeOrphanedCellLabs,
  openCellLab,
  SWEEP_ADDRESS,
} from '../sweep/cell-labs';

/*
 * A sweep's run labs left open by a process that died mid-sweep are closed when a server starts
 * (closeOrphanedCellLabs, run by lib/jobs/orphaned-sweep-labs.ts), and only those: a live process's
 * labs, and those of another boot or machine, stay open. A command line interrupted mid-sweep closes
 * the labs it still has open itself (closeOpenCellLabs).
 */

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

const here = processRunOf(process.pid);

async function sweepLabOf(ownerHash: string): Promise<LabRecord> {
  return createPrivateLab({
    kind: 'no-fencing',
    ownerHash,
    openedFrom: SWEEP_ADDRESS,
    initialValue: 'initial',
    opensPerAddress: 1_000,
    opensWindowMs: 3_600_000,
  });
}

test('a run lab names the process that opened it, and no browser owner can be taken for one', () => {
  assert.ok(here, 'this process has a run (Linux /proc)');
  const owner = cellLabOwner(here);
  assert.deepEqual(cellLabOpener(owner), here);
  assert.notEqual(cellLabOwner(here), owner, 'each run lab has an owner of its own');
  assert.equal(cellLabOpener('a'.repeat(64)), undefined);
});

test("at a server's start, the run labs of a sweep whose process died are closed, and only those", async () => {
  assert.ok(here);
  // The same PID, started at another time: a run of a process that is gone.
  const dead = await sweepLabOf(cellLabOwner({ ...here, startTicks: `${here.startTicks}0` }));
  const unnamed = await sweepLabOf(cellLabOwner(undefined));
  const alive = await sweepLabOf(cellLabOwner(here));
  const otherBoot = await sweepLabOf(cellLabOwner({ ...here, bootId: '00000000-0000-0000-0000-000000000000' }));

  const closed = await closeOrphanedCellLabs();
  assert.ok(closed.includes(dead.id) && closed.includes(unnamed.id), JSON.stringify(closed));
  assert.ok(!closed.includes(alive.id) && !closed.includes(otherBoot.id));
  for (const lab of [dead, unnamed]) {
    assert.ok((await findLab(lab.id))?.closedAt, `${lab.id} is closed`);
    const last = (await listEvents({ lab: lab.id })).at(-1);
    assert.equal(last?.kind, 'lab_closed');
    assert.match(String(last?.detail?.reason), /the process that ran this sweep run stopped/);
  }
  for (const lab of [alive, otherBoot]) assert.equal((await findLab(lab.id))?.closedAt, undefined);
  assert.deepEqual(await closeOrphanedCellLabs(), [], 'a second start finds nothing more to close');
  for (const lab of [alive, otherBoot]) await closeCellLab(lab);
});

test('an interrupted command line closes the run labs it still has open', async () => {
  const labs = [await openCellLab('no-fencing'), await openCellLab('fenced')];
  assert.equal(await closeOpenCellLabs('interrupted'), 2);
  for (const lab of labs) assert.ok((await findLab(lab.id))?.closedAt);
  assert.equal(await closeOpenCellLabs('interrupted'), 0);
});
