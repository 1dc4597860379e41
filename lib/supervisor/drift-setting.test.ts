import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closePool } from '../../db/pool';
import { isFencingError } from '../model/errors';
import { sharedLab } from '../model/lab-instance';
import { getSupervisor } from './supervisor';

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

test('a clock drift is refused for a worker of any lab but the drifting-clock one, before anything starts', async () => {
  const settings = { name: 'A', leaseTtlMs: 3_000, renewEveryMs: 1_000, writeEveryMs: 700, clockSlowPercent: 50 };
  for (const kind of ['fenced', 'no-fencing', 'same-token-takeover'] as const) {
    await assert.rejects(
      getSupervisor().startWorker(sharedLab(kind), settings),
      (error: unknown) =>
        isFencingError(error, 'invalid_input') &&
        /only the drifting-clock lab has a clock drift setting/.test(error.message),
      kind,
    );
    assert.deepEqual(await getSupervisor().listWorkers(sharedLab(kind)), [], `${kind}: no worker started`);
  }
});
