import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closePool } from '../../db/pool';
import { MAX_WORKERS_PER_LAB } from '../model/lab/lab-inputs';
import { MAX_PRIVATE_LAB_WORKERS } from '../model/lab/lab-limits';
import { getSupervisor } from '../supervisor/supervisor';
import { newOwnerSecret, trainerKey, trainerProofOf } from './access';
import * as commands from './lab-commands';

/*
 * The worker budget with real processes: private labs starting workers all at once (a script) get
 * no more than their share, and the trainer can still start a worker in a shared lab. Workers here
 * write once a minute: the budget counts processes, not load.
 */

const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const QUIET = { leaseTtlMs: 60_000, renewEveryMs: 30_000, writeEveryMs: 60_000 };
const labs: Array<{ id: string; owner: { ownerSecret: string } }> = [];

after(async () => {
  for (const { id, owner } of labs) await commands.closePrivateLab({ lab: id }, owner);
  await commands.resetLab({ lab: 'fenced' }, TRAINER);
  await getSupervisor().shutdown();
  await closePool();
});

test('private labs never take the workers kept for the shared labs, however many they start at once', async () => {
  for (let i = 0; i < 5; i++) {
    const owner = { ownerSecret: newOwnerSecret() };
    const opened = await commands.openPrivateLab({ kind: 'no-fencing' }, { ...owner, address: `198.19.0.${i}` });
    assert.ok(opened.ok, JSON.stringify(opened));
    labs.push({ id: opened.data.id, owner });
  }
  // 8 workers in each of 5 private labs, all asked for at once: 40 starts for a share of 32.
  const starts = await Promise.all(
    labs.flatMap(({ id, owner }) =>
      Array.from({ length: MAX_WORKERS_PER_LAB }, (_, n) =>
        commands.startWorker({ lab: id, settings: { name: `P${n}`, ...QUIET } }, owner),
      ),
    ),
  );
  const started = starts.filter((r) => r.ok).length;
  assert.equal(started, MAX_PRIVATE_LAB_WORKERS);
  for (const refused of starts.filter((r) => !r.ok)) {
    assert.equal(!refused.ok && refused.error.code, 'limit_reached');
    assert.match(!refused.ok ? refused.error.message : '', /kept for the trainer's shared labs/);
  }

  // A restart is a start too: a crashed worker cannot come back past the share. (How the 32 fell
  // among the labs depends on the order the starts arrived in: any lab with a worker will do.)
  const running = await Promise.all(labs.map(({ id, owner }) => runningIn(id, owner)));
  const sizes = running.map((ids) => ids.length);
  const fullest = sizes.indexOf(Math.max(...sizes));
  const full = labs[fullest];
  const other = labs[running.findIndex((ids, i) => i !== fullest && ids.length < MAX_WORKERS_PER_LAB)];
  const crashed = running[fullest]?.[0];
  assert.ok(full && other && crashed, JSON.stringify(running));
  assert.ok((await commands.crashWorker({ lab: full.id, worker: crashed }, full.owner)).ok);
  const late = await commands.startWorker({ lab: other.id, settings: { name: 'Late', ...QUIET } }, other.owner);
  assert.ok(late.ok, JSON.stringify(late));
  const restart = await commands.restartWorker({ lab: full.id, worker: crashed }, full.owner);
  assert.equal(!restart.ok && restart.error.code, 'limit_reached');

  // The trainer still drives.
  await commands.resetLab({ lab: 'fenced' }, TRAINER);
  const trainer = await commands.startWorker({ lab: 'fenced', settings: { name: 'A', ...QUIET } }, TRAINER);
  assert.ok(trainer.ok, JSON.stringify(trainer));
});

/** The ids of the lab's running workers. */
async function runningIn(lab: string, owner: { ownerSecret: string }): Promise<string[]> {
  const listed = await commands.listWorkers({ lab }, owner);
  assert.ok(listed.ok);
  return listed.data.filter((w) => w.alive).map((w) => w.id);
}
