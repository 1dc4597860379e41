import { hostname, networkInterfaces } from 'node:os';
import { type OwnHosts, ownHostsOf } from '../model/core/hosts';

/*
 * This server's own host names, from what the launcher passes (PORT, HOST, FENCING_LAB_ALLOWED_HOSTS)
 * and, when it listens on every address (HOST=0.0.0.0), this machine's addresses and name, so that
 * a room reaching it by its LAN address is let in with no setting.
 * No 'server-only' import: proxy.ts (the server's one door, Node runtime) imports it too.
 */

type GlobalWithHosts = typeof globalThis & { __fencingLabOwnHosts?: OwnHosts };

/**
 * The names, worked out once; `refresh` works them out again (the machine may have joined another
 * network since: a refused name is checked once more against its addresses now).
 */
export function ownHosts({ refresh = false } = {}): OwnHosts {
  const holder = globalThis as GlobalWithHosts;
  if (refresh) holder.__fencingLabOwnHosts = undefined;
  holder.__fencingLabOwnHosts ??= ownHostsOf({
    port: process.env.PORT || '3000',
    listenHost: process.env.HOST || '127.0.0.1',
    machineAddresses: Object.values(networkInterfaces())
      .flat()
      .flatMap((iface) => (iface && !iface.address.includes('%') ? [iface.address] : [])),
    machineNames: [hostname(), `${hostname()}.local`],
    allowed: (process.env.FENCING_LAB_ALLOWED_HOSTS ?? '').split(','),
  });
  return holder.__fencingLabOwnHosts;
}
