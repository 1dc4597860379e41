import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import { closePool } from '../../db/pool';
import { isFencingError } from '../model/core/errors';
import { sharedLab } from '../model/lab/lab-instance';
import { DELAYED_PACKET_SETTINGS } from '../model/walkthrough/delayed-packet-settings';
import { getSupervisor } from './supervisor';

/*
 * The delayed-packet labs' packet relays belong to this server's supervisor, one per worker process it
 * starts: a reset (and so a close, or a shutdown, which end the processes too) closes them, and no
 * port stays open. The controls name a worker, and refuse every lab without a packet relay.
 */

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });

test("a delayed-packet worker's packet relay lives with its process: a reset closes it and frees its port", async () => {
  const lab = sharedLab('delayed-packet');
  const supervisor = getSupervisor();
  await supervisor.resetLab(lab);
  await supervisor.startWorker(lab, DELAYED_PACKET_SETTINGS.A);
  const relay = supervisor.local.named(lab, 'A')?.relay;
  assert.ok(relay, 'the worker runs behind a packet relay');
  const port = relay.port;
  assert.equal(await refused(port), false, 'the relay listens while the worker runs');
  const held = await supervisor.holdConnection(lab, 'A');
  assert.match(held.message, /the proxy holds A's next write/);
  await assert.rejects(supervisor.holdConnection(lab, 'A'), /already held/);
  await supervisor.resetLab(lab);
  assert.equal(relay.isClosed, true, 'closed with its worker');
  assert.equal(await refused(port), true, 'nothing listens on its port any more');
});

test('hold and release are refused in a lab without a packet relay, and for a worker that is not there', async () => {
  await assert.rejects(
    getSupervisor().startWorker(sharedLab('no-fencing'), { ...DELAYED_PACKET_SETTINGS.A, retryAfterMs: 4_000 }),
    (error: unknown) =>
      isFencingError(error, 'invalid_input') &&
      /only the delayed-packet labs have a client timeout and retry setting/.test(error.message),
  );
  await assert.rejects(
    getSupervisor().holdConnection(sharedLab('fenced'), 'A'),
    (error: unknown) =>
      isFencingError(error, 'invalid_input') && /only the delayed-packet labs hold a connection/.test(error.message),
  );
  await assert.rejects(
    getSupervisor().releaseConnection(sharedLab('delayed-packet-unfenced'), 'Z'),
    (error: unknown) => isFencingError(error, 'invalid_input') && /no worker "Z"/.test(error.message),
  );
});
