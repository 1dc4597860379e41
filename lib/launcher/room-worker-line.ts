import { networkInterfaces } from 'node:os';

/*
 * Where the room reaches this machine when the app listens beyond loopback: the address a person's
 * worker line names (the lab page's command, lib/model/lab/worker-command.ts), and why that one.
 */

/** The address the room reaches this machine by: HOST itself, or for a wildcard the first non-internal IPv4. */
export function roomAddress(host: string): { address: string; what: string } | undefined {
  if (host !== '0.0.0.0' && host !== '::') return { address: host, what: 'the address the app listens on (HOST)' };
  const first = Object.values(networkInterfaces())
    .flat()
    .find((iface) => iface && iface.family === 'IPv4' && !iface.internal);
  return first && { address: first.address, what: "this machine's first network address" };
}
