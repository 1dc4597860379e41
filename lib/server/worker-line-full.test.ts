import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { closePool } from '../../db/pool';
import { getSupervisor } from '../supervisor/supervisor';
import { testWorkerLineUrl } from '../testing/worker-line';
import { newOwnerSecret, trainerKey, trainerProofOf } from './access';
import * as commands from './lab-commands';

/*
 * Issue 23, item 3: 194 idle connections on the room's worker line (its role's cap was 200) and the
 * trainer's Start in a shared lab, and an owner's in a private lab, failed with "too many connections
 * for role". The workers a server forks now connect as a role of their own (db/roles.ts, 0041): the
 * room filling its line to its cap takes none of their connections.
 */

const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const QUIET = { leaseTtlMs: 60_000, renewEveryMs: 30_000, writeEveryMs: 60_000 };
const held: pg.Client[] = [];
let privateLab: { id: string; owner: { ownerSecret: string } } | undefined;

after(async () => {
  await Promise.all(held.map((client) => client.end().catch(() => undefined)));
  if (privateLab) await commands.closePrivateLab({ lab: privateLab.id }, privateLab.owner);
  await commands.resetLab({ lab: 'fenced' }, TRAINER);
  await getSupervisor().shutdown();
  await closePool();
});

/** Opens connections on the room's worker line until its role's cap refuses one (at most `most`). */
async function fillTheRoomsLine(most: number): Promise<string> {
  const url = await testWorkerLineUrl();
  for (let n = 0; n < most; n++) {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      return (error as Error).message;
    }
    held.push(client);
  }
  return `all ${most} connected`;
}

test("the room's worker line held to its cap: the trainer's Start in a shared lab and an owner's in a private lab still run", async () => {
  const owner = { ownerSecret: newOwnerSecret() };
  const opened = await commands.openPrivateLab({ kind: 'no-fencing' }, { ...owner, address: '198.19.1.1' });
  assert.ok(opened.ok, JSON.stringify(opened));
  privateLab = { id: opened.data.id, owner };
  await commands.resetLab({ lab: 'fenced' }, TRAINER);

  const refusal = await fillTheRoomsLine(250);
  assert.match(refusal, /too many connections for role/, `the room's line is full (${held.length} held)`);

  const trainer = await commands.startWorker({ lab: 'fenced', settings: { name: 'A', ...QUIET } }, TRAINER);
  assert.ok(trainer.ok, JSON.stringify(trainer));
  const own = await commands.startWorker({ lab: privateLab.id, settings: { name: 'Mine', ...QUIET } }, owner);
  assert.ok(own.ok, JSON.stringify(own));
  for (const [lab, who] of [
    ['fenced', TRAINER],
    [privateLab.id, owner],
  ] as const) {
    const listed = await commands.listWorkers({ lab }, who);
    assert.ok(listed.ok && listed.data.some((w) => w.alive), `${lab}: a live worker`);
  }
});
