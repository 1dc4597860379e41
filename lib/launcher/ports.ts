import net from 'node:net';

/** A free TCP port on 127.0.0.1: `preferred` when it is free, otherwise one the system picks. */
export async function freePort(preferred = 0): Promise<number> {
  const port = (preferred > 0 ? await tryListen(preferred) : undefined) ?? (await tryListen(0));
  if (!port) throw new Error('no free TCP port on 127.0.0.1');
  return port;
}

function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}
