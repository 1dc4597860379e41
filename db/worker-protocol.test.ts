import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { WORKER_PROTOCOL_VERSION } from '../lib/model/core/input-bounds';
import { testWorkerLineUrl } from '../lib/testing/worker-line';
import { closeLab, createPrivateLab, labJoinKey } from './labs';
import { closePool, getPool, newClient } from './pool';
import { registerRemoteWorker } from './remote-workers';

/*
 * The worker protocol's version (issue 36, docs/protocol.md): a client names it in its join settings.
 * Another version is refused before anything is stored, saying the version spoken here; absent means
 * the first; the version is not kept with the settings the servers show.
 */

let db: pg.Client;
let lab: string;
let key: string;

before(async () => {
  db = newClient(await testWorkerLineUrl());
  await db.connect();
  lab = (
    await createPrivateLab({
      kind: 'fenced',
      ownerHash: randomBytes(32).toString('hex'),
      openedFrom: `protocol-${randomBytes(4).toString('hex')}`,
      initialValue: 'initial',
      opensPerAddress: 12,
      opensWindowMs: 1,
    })
  ).id;
  key = (await labJoinKey(lab)) as string;
});
after(async () => {
  await db.end();
  await closeLab(lab).catch(() => undefined);
  await closePool();
});

async function join(name: string, settings: Record<string, unknown>) {
  const { rows } = await db.query<{ refusal: string | null; kind: string | null }>(
    'SELECT * FROM worker_join($1, $2, $3, $4, $5)',
    [lab, name, randomBytes(12).toString('hex'), JSON.stringify({ name, ...settings }), key],
  );
  return rows[0];
}

const stored = async (name: string) =>
  (await getPool().query('SELECT settings FROM remote_workers WHERE lab = $1 AND name = $2', [lab, name])).rows[0]
    ?.settings;

test('a client of another protocol version is refused, told the version spoken here, and nothing is stored', async () => {
  for (const protocol of [WORKER_PROTOCOL_VERSION + 1, 0, '1', null]) {
    const refused = await join('Future', { protocol });
    assert.deepEqual(
      [refused?.refusal, refused?.kind],
      ['protocol', String(WORKER_PROTOCOL_VERSION)],
      String(protocol),
    );
  }
  assert.equal(await stored('Future'), undefined);
});

test('the version spoken here joins, and so does a client that names none; the settings are kept without it', async () => {
  assert.equal((await join('Now', { protocol: WORKER_PROTOCOL_VERSION }))?.refusal, null);
  assert.deepEqual(await stored('Now'), { name: 'Now' });
  assert.equal((await join('Unsaid', {}))?.refusal, null);
});

test("our own worker's join names its version", async () => {
  let sent: unknown;
  const spy = {
    query: (sql: string, params: unknown[]) => {
      sent = JSON.parse(String(params[3]));
      return db.query(sql, params);
    },
  } as unknown as pg.Client;
  const settings = { name: 'Ours', leaseTtlMs: 2_000, renewEveryMs: 500, writeEveryMs: 300 };
  const joined = await registerRemoteWorker(
    { lab, name: 'Ours', instance: randomBytes(12).toString('hex'), settings, joinKey: key },
    spy,
  );
  assert.equal(joined.joined, true);
  assert.deepEqual(sent, { ...settings, protocol: WORKER_PROTOCOL_VERSION });
  assert.deepEqual(await stored('Ours'), settings);
});
