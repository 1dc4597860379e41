import { hostname, networkInterfaces } from 'node:os';
import { roomSettings } from '../config/room-settings';
import { type OwnHosts, ownHostsOf } from '../model/core/hosts';
import { closeSingleton, singleton } from '../os/process-singletons';

/*
 * This server's own host names, from what the launcher passes (PORT, HOST, FENCING_LAB_ALLOWED_HOSTS)
 * and, when it listens on every address (HOST=0.0.0.0), this machine's addresses and name, so that
 * a room reaching it by its LAN address is let in with no setting.
 * No 'server-only' import: the request hook, proxy.ts (the server's one door, Node runtime) imports it too.
 */

const OWN_HOSTS = 'server.own-hosts';

/**
 * The names, worked out once; `refresh` works them out again (the machine may have joined another
 * network since: a refused name is checked once more against its addresses now).
 */
export function ownHosts({ refresh = false } = {}): OwnHosts {
  // Forgotten at once: the singleton has nothing to close.
  if (refresh) void closeSingleton(OWN_HOSTS);
  return singleton(OWN_HOSTS, () =>
    ownHostsOf({
      port: String(roomSettings().port),
      listenHost: roomSettings().listenHost,
      machineAddresses: Object.values(networkInterfaces())
        .flat()
        .flatMap((iface) => (iface && !iface.address.includes('%') ? [iface.address] : [])),
      machineNames: [hostname(), `${hostname()}.local`],
      allowed: roomSettings().allowedHosts,
    }),
  );
}
