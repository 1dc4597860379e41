import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { closeLab, createPrivateLab, labJoinKey } from '../../db/labs';
import { newClient } from '../../db/pool';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';
import { testWorkerLineUrl } from './worker-line';

/** A worker joined to a lab, as every worker function is told who calls it. */
export type Me = { lab: string; name: string; instance: string };

/**
 * A fenced private lab of a test's own, a session of a person's worker line (`worker`) and one of the
 * owner (`owner`), and joins into that lab with its key: what the worker-role tests of bounds and
 * volume start from. `close()` ends both sessions and the lab.
 */
export async function openPrivateLabOnLine(label: string): Promise<{
  worker: pg.Client;
  owner: pg.Client;
  lab: string;
  join(name: string): Promise<Me>;
  close(): Promise<void>;
}> {
  const worker = newClient(await testWorkerLineUrl());
  await worker.connect();
  const owner = newClient();
  await owner.connect();
  const { id: lab } = await createPrivateLab({
    kind: 'fenced',
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `${label}-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 12,
    opensWindowMs: 1,
  });
  return {
    worker,
    owner,
    lab,
    async join(name) {
      const me = { lab, name, instance: randomBytes(12).toString('hex') };
      const { rows } = await worker.query<{ refusal: string | null }>('SELECT * FROM worker_join($1, $2, $3, $4, $5)', [
        lab,
        name,
        me.instance,
        JSON.stringify({ name }),
        await labJoinKey(lab),
      ]);
      assert.equal(rows[0]?.refusal, null, `${name} joins`);
      return me;
    },
    async close() {
      await worker.end();
      await owner.end();
      // The lab may be closed already; the test's own assertions said what mattered.
      await closeLab(lab).catch(() => undefined);
    },
  };
}
