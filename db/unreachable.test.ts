import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { isFencingError } from '../lib/model/core/errors';
import { newClient, toFencingError } from './pool';

/*
 * A database that does not answer is "unavailable", however it fails to answer: a refused port, and
 * a port that takes the connection and then says nothing (a host cut off, a frozen server). Workers
 * and the supervisor wait for an unavailable database instead of giving up.
 */

let silent: Server;
let port: number;
const sockets: Socket[] = [];

before(async () => {
  silent = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  port = (silent.address() as { port: number }).port;
});
after(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

async function connectError(url: string): Promise<unknown> {
  const client = newClient(url);
  try {
    await client.connect();
  } catch (error) {
    return error;
  } finally {
    await client.end().catch(() => undefined);
  }
  assert.fail('connected to a database that is not there');
}

test('a server that takes the connection and never answers: unavailable, after the connect timeout', async () => {
  const error = await connectError(`postgres://nobody:secret@127.0.0.1:${port}/fencing_lab`);
  assert.ok(isFencingError(toFencingError(error), 'db_unavailable'), String(error));
});

test('a refused port: unavailable', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve));
  const error = await connectError(`postgres://nobody:secret@127.0.0.1:${closedPort}/fencing_lab`);
  assert.ok(isFencingError(toFencingError(error), 'db_unavailable'), String(error));
});
