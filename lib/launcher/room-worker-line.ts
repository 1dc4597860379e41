import { networkInterfaces } from 'node:os';

/*
 * What the launcher tells the trainer to give the room when the app listens beyond loopback: the
 * exact command that runs a worker on a trainee's machine, and which address of this machine it
 * names and why. The worker URL carries the room's worker password: it is printed once, in that
 * command, and nowhere else.
 */

/** The address the room reaches this machine by: HOST itself, or for a wildcard the first non-internal IPv4. */
export function roomAddress(host: string): { address: string; what: string } | undefined {
  if (host !== '0.0.0.0' && host !== '::') return { address: host, what: 'the address the app listens on (HOST)' };
  const first = Object.values(networkInterfaces())
    .flat()
    .find((iface) => iface && iface.family === 'IPv4' && !iface.internal);
  return first && { address: first.address, what: "this machine's first network address" };
}

/** `npm run worker -- …` for the fenced lab, with the worker URL quoted if a chosen password needs it. */
export function workerCommand(workerUrl: string): string {
  return `npm run worker -- --db ${shellWord(workerUrl)} --lab fenced --name <your name>`;
}

/** One shell word: as it is when that is safe to paste, else in single quotes. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9@%:/._~+=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
