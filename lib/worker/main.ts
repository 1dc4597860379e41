import 'server-only';
import { setTimeout as sleep } from 'node:timers/promises';
import { newClient, toFencingError } from '../../db/pool';
import { isFencingError } from '../model/errors';
import { LeaseClient } from './lease-client';
import type { SupervisorMessage, WorkerConfig, WorkerMessage } from './protocol';

/*
 * A worker process, forked by the supervisor: its own database connection, its own lease loop.
 * It ends when told to stop, when the supervisor goes away (IPC disconnect, or EOF on the pause
 * pipe while frozen), or on SIGTERM/SIGKILL.
 */

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected || !process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

async function main(): Promise<void> {
  const config = JSON.parse(process.env.FENCING_LAB_WORKER ?? 'null') as WorkerConfig | null;
  if (!config) throw new Error('FENCING_LAB_WORKER is not set: workers are started by the lab supervisor');
  process.on('disconnect', () => process.exit(0));

  // A connection of its own, and a new one whenever the database goes away (the lease client
  // reconnects, as a real one would, instead of dying with the connection).
  const connect = async () => {
    const session = newClient(config.databaseUrl);
    await session.connect();
    return session;
  };
  const client = new LeaseClient(config, await firstConnection(connect), connect, send);
  process.on('message', (message: SupervisorMessage) => {
    if (message.type === 'stop') process.exit(0);
    client.obey(message.type);
  });
  await client.run();
}

const FIRST_CONNECT_RETRY_FIRST_MS = 200;
const FIRST_CONNECT_RETRY_MAX_MS = 2_000;

/**
 * A worker started while the database is away (crashed, restarting) waits for it, as the lease
 * loop does after a lost connection, instead of dying before it ever ran. Any other failure (a
 * wrong password, say) is fatal.
 */
async function firstConnection(connect: () => Promise<Awaited<ReturnType<typeof newClient>>>) {
  for (let delayMs = FIRST_CONNECT_RETRY_FIRST_MS; ; delayMs = Math.min(delayMs * 2, FIRST_CONNECT_RETRY_MAX_MS)) {
    try {
      return await connect();
    } catch (error) {
      if (!isFencingError(toFencingError(error), 'db_unavailable')) throw error;
      await sleep(delayMs);
    }
  }
}

main().catch(async (error: unknown) => {
  await send({ type: 'fatal', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
