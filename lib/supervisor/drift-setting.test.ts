import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { listEvents } from '../../db/events';
import { closeLab, createPrivateLab, type LabRecord } from '../../db/labs';
import { closePool, newClient } from '../../db/pool';
import { isFencingError } from '../model/core/errors';
import { sharedLab } from '../model/lab/lab-instance';
import type { LabId } from '../model/lab/lab-kinds';
import { waitForEvent } from '../testing/wait-for-event';
import { INITIAL_ROW_VALUE } from './lab-reset';
import { getSupervisor } from './supervisor';

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

test('a clock drift is refused for a worker of any lab but the drifting-clock one, before anything starts', async () => {
  const settings = { name: 'A', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 700, clockSlowPercent: 50 };
  for (const kind of ['fenced', 'no-fencing', 'same-token-takeover'] as const) {
    // The lab as an earlier file on this database left it (a stopped worker's lane may stay listed).
    const before = (await getSupervisor().listWorkers(sharedLab(kind))).map((w) => w.id);
    await assert.rejects(
      getSupervisor().startWorker(sharedLab(kind), settings),
      (error: unknown) =>
        isFencingError(error, 'invalid_input') &&
        /only the drifting-clock labs have a clock drift setting/.test(error.message),
      kind,
    );
    assert.deepEqual(
      (await getSupervisor().listWorkers(sharedLab(kind))).map((w) => w.id),
      before,
      `${kind}: no worker started`,
    );
  }
});

test("judging the lease by the database's clock is refused for a worker of any lab but the drifting-clock ones", async () => {
  const settings = {
    name: 'A',
    leaseTtlMs: 3_000,
    renewEveryMs: 1_000,
    writeEveryMs: 700,
    leaseClock: 'database',
  } as const;
  for (const kind of ['fenced', 'no-fencing', 'delayed-packet'] as const) {
    const before = (await getSupervisor().listWorkers(sharedLab(kind))).map((w) => w.id);
    await assert.rejects(
      getSupervisor().startWorker(sharedLab(kind), settings),
      (error: unknown) =>
        isFencingError(error, 'invalid_input') &&
        /only the drifting-clock labs have a lease clock setting/.test(error.message),
      kind,
    );
    assert.deepEqual(
      (await getSupervisor().listWorkers(sharedLab(kind))).map((w) => w.id),
      before,
      `${kind}: no worker started`,
    );
  }
  await assert.rejects(
    getSupervisor().startWorker(sharedLab('drifting-clock'), { ...settings, leaseClock: 'ntp' as 'database' }),
    (error: unknown) =>
      isFencingError(error, 'invalid_input') && /judges its lease by one of: own, database/.test(error.message),
  );
});

/*
 * The database, not the worker's clock, says when a lease has ended. A (80 % slow, a 1 s lease renewed
 * every 0.5 s by its own clock) asks to renew 2.5 s after its grant in real time, when the lease has
 * run out by the database's clock but A's clock reads only half of it gone: the database refuses, and
 * A must give the lease up then and there (its lease_lost says what its clock read), not carry on
 * until its own clock agrees. npm run test:mutations plants that mistake (expiry-by-worker-clock).
 */
test("a renewal the database refuses ends the worker's lease at once, though its slow clock says the lease still runs", async () => {
  const lab = sharedLab('drifting-clock');
  const supervisor = getSupervisor();
  await supervisor.resetLab(lab);
  try {
    const settings = { name: 'A', leaseTtlMs: 1_000, renewEveryMs: 500, writeEveryMs: 60_000, clockSlowPercent: 80 };
    await supervisor.startWorker(lab, settings);
    const lost = await waitForEvent(lab.id, (e) => e.actor === 'A' && e.kind === 'lease_lost', "A's lease_lost", {
      timeoutMs: 30_000,
    });
    assert.equal(lost.detail?.reason, 'my renewal was refused');
    const myClock = String(lost.detail?.myClock);
    const believedUntil = String(lost.detail?.believedUntil);
    assert.ok(
      Date.parse(myClock) < Date.parse(believedUntil),
      `A gave its lease up only when its own clock (${myClock}) said it had run out (${believedUntil})`,
    );
  } finally {
    await supervisor.stopLab(lab);
  }
});

/*
 * A restart starts a worker from the settings its status row stored, which anyone with the worker
 * line may have written (worker_join checks their size and name, not every rule of the Start form).
 * They go through the same check as a start: the schema, and a drift only in the drifting-clock lab.
 */
describe('a restart from stored settings the Start form would refuse', () => {
  const opened: string[] = [];
  after(async () => {
    for (const id of opened) await closeLab(id);
  });

  async function planted(kind: LabId, settings: Record<string, unknown>): Promise<LabRecord> {
    const lab = await createPrivateLab({
      kind,
      ownerHash: randomBytes(32).toString('hex'),
      openedFrom: `drift-restart-${randomBytes(4).toString('hex')}`,
      initialValue: INITIAL_ROW_VALUE,
      opensPerAddress: 1,
      opensWindowMs: 1,
    });
    opened.push(lab.id);
    // A worker a server started that crashed: shown, and restartable from its stored settings.
    const owner = newClient();
    await owner.connect();
    try {
      await owner.query(
        `INSERT INTO remote_workers (lab, name, instance, settings, phase, generation, server, worker_id, id_generation,
                                     heartbeat_at)
         SELECT $1, $2, $3, $4, 'crashed', l.generation, $5, 'w1', l.generation, clock_timestamp() - interval '1 minute'
           FROM labs l WHERE l.id = $1`,
        [
          lab.id,
          settings.name,
          randomBytes(16).toString('hex'),
          JSON.stringify(settings),
          JSON.stringify({ pid: 1, startTicks: '1', bootId: 'x', workerPid: 2 }),
        ],
      );
    } finally {
      await owner.end();
    }
    return lab;
  }

  for (const [label, kind, settings, reason] of [
    [
      'a drift in the fenced lab',
      'fenced',
      { name: 'Drifty', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 700, clockSlowPercent: 50 },
      /only the drifting-clock labs have a clock drift setting/,
    ],
    [
      'a drift of 5000 % in the drifting-clock lab',
      'drifting-clock',
      { name: 'Drifty', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 700, clockSlowPercent: 5000 },
      /clock drift must be at most 90 % slow/,
    ],
    [
      'a lease TTL of 1 ms',
      'no-fencing',
      { name: 'Hasty', leaseTtlMs: 1, renewEveryMs: 0, writeEveryMs: 700 },
      /lease TTL must be/,
    ],
  ] as const) {
    test(`${label}: refused with the reason, and nothing started`, async () => {
      const lab = await planted(kind, settings);
      const [shown] = await getSupervisor().listWorkers(lab);
      assert.equal(shown?.name, settings.name, 'the planted worker is shown, restartable');
      await assert.rejects(
        getSupervisor().restart(lab, settings.name),
        (error: unknown) =>
          isFencingError(error, 'invalid_input') &&
          error.message.startsWith(`${settings.name} cannot be restarted from its stored settings: `) &&
          reason.test(error.message),
      );
      assert.deepEqual(getSupervisor().local.inLab(lab), [], 'no process started');
      const events = await listEvents({ lab: lab.id });
      assert.deepEqual(
        events.filter((e) => e.kind === 'worker_restarted' || e.kind === 'worker_started'),
        [],
      );
    });
  }
});
