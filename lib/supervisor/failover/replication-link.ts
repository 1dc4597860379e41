import net from 'node:net';

/*
 * The replication link, the wire between the primary and its standby: a TCP relay that the
 * standby's primary_conninfo names, which forwards to the primary. cut() drops every connection through it and refuses new ones
 * (the standby retries on its own); heal() lets them through again. Nothing else is faked: the
 * standby really stops receiving WAL, and the primary really stops hearing from it.
 */

export type ReplicationLink = {
  port: number;
  isCut(): boolean;
  cut(): void;
  heal(): void;
  close(): Promise<void>;
};

export async function startReplicationLink(target: { port: number; host?: string }): Promise<ReplicationLink> {
  const host = target.host ?? '127.0.0.1';
  const open = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect({ host, port: target.port });
    const pair = [client, upstream];
    for (const socket of pair) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        for (const other of pair) other.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the replication link has no port');
  return {
    port: address.port,
    isCut: () => cut,
    cut: () => {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    heal: () => {
      cut = false;
    },
    close: async () => {
      cut = true;
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
