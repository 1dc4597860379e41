import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { waitFor } from '../testing/wait';
import { PacketRelay } from './packet-relay';

/*
 * The packet relay against the real database (the test runner's PostgreSQL, DATABASE_URL): a statement held
 * at the relay really reaches PostgreSQL late (by the database's own clock), the connection's other
 * traffic and the relay's other connections are untouched, a client that gave up still has its held
 * write applied on release, and a closed relay leaves nothing listening.
 */

const HOLD_MS = 800;
let relay: PacketRelay;
let direct: pg.Client;
const table = `packet_relay_test_${process.pid}`;

function throughRelay(): pg.Client {
  const url = new URL(process.env.DATABASE_URL ?? '');
  url.hostname = '127.0.0.1';
  url.port = String(relay.port);
  return new pg.Client({ connectionString: url.toString() });
}

before(async () => {
  const url = new URL(process.env.DATABASE_URL ?? '');
  relay = await PacketRelay.open({ host: url.hostname, port: Number(url.port || 5432) });
  direct = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await direct.connect();
  await direct.query(`CREATE TABLE ${table} (id int PRIMARY KEY, value text, received_at timestamptz)`);
  await direct.query(`INSERT INTO ${table} VALUES (1, 'initial', NULL)`);
});

after(async () => {
  await direct.query(`DROP TABLE IF EXISTS ${table}`);
  await direct.end();
  await relay.close();
});

test('a held statement reaches PostgreSQL only when released, while the other connections flow', async () => {
  const a = throughRelay();
  const other = throughRelay();
  await a.connect();
  await other.connect();
  try {
    relay.holdNext('held-write');
    const sentAt = (await direct.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]?.now as Date;
    const write = a.query(
      `UPDATE ${table} SET value = $1, received_at = clock_timestamp() WHERE id = 1 /* held-write */ RETURNING received_at`,
      ['A-late'],
    );
    // The write's bytes reach the relay and are held there; then the hold lasts HOLD_MS.
    await waitFor(() => (relay.heldConnections()[0]?.heldBytes ?? 0) > 0, 'the write held at the relay');
    await sleep(HOLD_MS);
    assert.equal(relay.heldConnections().length, 1, 'one connection held');
    assert.ok((relay.heldConnections()[0]?.heldBytes ?? 0) > 0, 'its bytes are in the relay');
    // PostgreSQL has not seen it: the row is as it was.
    const meanwhile = await direct.query<{ value: string }>(`SELECT value FROM ${table} WHERE id = 1`);
    assert.equal(meanwhile.rows[0]?.value, 'initial');
    // Another connection through the same relay is not held.
    const flowing = await other.query<{ one: number }>('SELECT 1 AS one');
    assert.equal(flowing.rows[0]?.one, 1);

    assert.ok(relay.release() > 0, 'the held bytes were sent on');
    const result = await write;
    const receivedAt = result.rows[0]?.received_at as Date;
    const lateMs = receivedAt.getTime() - sentAt.getTime();
    assert.ok(lateMs >= HOLD_MS - 50, `PostgreSQL ran it ${lateMs} ms after it was sent (held ${HOLD_MS} ms)`);
    assert.equal(relay.heldConnections().length, 0);
    // The connection forwards again.
    assert.equal((await a.query<{ two: number }>('SELECT 2 AS two')).rows[0]?.two, 2);
  } finally {
    await a.end();
    await other.end();
  }
});

test('a client that gives up on a held write: the write still lands when the bytes arrive', async () => {
  const a = throughRelay();
  a.on('error', () => undefined);
  await a.connect();
  relay.holdNext('gave-up');
  const write = a
    .query(`UPDATE ${table} SET value = 'A-abandoned' WHERE id = 1 /* gave-up */`)
    .catch((error: Error) => error);
  // The client gives up once its write is on the wire, held at the relay.
  await waitFor(() => (relay.heldConnections()[0]?.heldBytes ?? 0) > 0, 'the write held at the relay');
  // The client's own timeout: it drops its socket. The network still carries what it sent.
  (a as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
  assert.ok((await write) instanceof Error, 'the client saw its connection go');
  await direct.query(`UPDATE ${table} SET value = 'B-1' WHERE id = 1`);
  relay.release();
  const deadline = Date.now() + 5_000;
  let value = '';
  while (Date.now() < deadline) {
    value = (await direct.query<{ value: string }>(`SELECT value FROM ${table} WHERE id = 1`)).rows[0]?.value ?? '';
    if (value === 'A-abandoned') break;
    await sleep(50);
  }
  assert.equal(value, 'A-abandoned', "the abandoned write arrived after B's and overwrote it");
});

test('a closed relay listens no more and ends its connections', async () => {
  const extra = await PacketRelay.open({
    host: '127.0.0.1',
    port: Number(new URL(process.env.DATABASE_URL ?? '').port),
  });
  const port = extra.port;
  const client = new pg.Client({
    connectionString: Object.assign(new URL(process.env.DATABASE_URL ?? ''), { port: String(port) }).toString(),
  });
  client.on('error', () => undefined);
  await client.connect();
  extra.holdNext('never');
  await extra.close();
  assert.ok(extra.isClosed);
  await assert.rejects(client.query('SELECT 1'));
  await assert.rejects(
    new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
    }),
    /ECONNREFUSED/,
  );
});
