import 'server-only';
import { newClient } from '../../db/pool';
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
  const client = new LeaseClient(config, await connect(), connect, send);
  process.on('message', (message: SupervisorMessage) => {
    if (message.type === 'stop') process.exit(0);
    client.obey(message.type);
  });
  await client.run();
}

main().catch(async (error: unknown) => {
  await send({ type: 'fatal', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
