import { type ChildProcess, execFile, type SpawnOptions, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../launcher/paths';

/*
 * Another machine on the network, for tests of what the database lets in from outside loopback:
 * a network namespace (its own interfaces, addresses and routes, as a second host has) joined to
 * this one by a veth pair, with a default route through it, so it reaches this machine's network
 * address as a laptop in the room would. Needs root and iproute2 (`ip netns`); without them, this
 * machine's own network address stands in (a client connecting to it is seen by PostgreSQL as coming
 * from that address, not from loopback, which is what pg_hba.conf goes by).
 */

const run = promisify(execFile);
const CONNECT_TIMEOUT_MS = 5_000;

/** What a connection attempt from the other host gave: who it was and the address PostgreSQL saw, or the error. */
export type ConnectOutcome =
  | { ok: true; user: string; clientAddress: string }
  | { ok: false; code: string; message: string };

export type OtherHost = {
  /** How it is made: "network namespace …" or "this machine's address …". */
  description: string;
  /** Its address, as a server on this machine sees its connections come from. */
  address: string;
  /** Connects to `url` from there with node-postgres and asks who it is. */
  connect(url: string): Promise<ConnectOutcome>;
  /** Starts a program there (`node` and its arguments), from the project's root. */
  spawnNode(args: string[]): ChildProcess;
  dispose(): Promise<void>;
};

const SPAWN_OPTIONS: SpawnOptions = { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] };

/** The first non-internal IPv4 address of this machine, as the launcher picks it. */
export function machineAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((iface) => iface && iface.family === 'IPv4' && !iface.internal)?.address;
}

export async function startOtherHost(): Promise<OtherHost | undefined> {
  return (await networkNamespace()) ?? ownAddress();
}

async function networkNamespace(): Promise<OtherHost | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const tag = `${process.pid % 10_000}${randomInt(100)}`;
  const namespace = `fl-other-${tag}`;
  const [hostSide, otherSide] = [`flh${tag}`, `flo${tag}`];
  // A /30 of its own in 10.0.0.0/8, picked at random so that parallel runs do not meet.
  const subnet = `10.${randomInt(200, 250)}.${randomInt(256)}.${4 * randomInt(64)}`;
  const [a, b, c, d] = subnet.split('.').map(Number) as [number, number, number, number];
  const hostAddress = `${a}.${b}.${c}.${d + 1}`;
  const address = `${a}.${b}.${c}.${d + 2}`;
  const ip = (...args: string[]) => run('ip', args);
  const inside = (...args: string[]) => run('ip', ['netns', 'exec', namespace, 'ip', ...args]);
  try {
    await ip('netns', 'add', namespace);
  } catch {
    return undefined;
  }
  const dispose = async () => {
    // Deleting the namespace takes its end of the pair with it, and so the pair.
    await ip('netns', 'del', namespace).catch(() => undefined);
    await ip('link', 'del', hostSide).catch(() => undefined);
  };
  try {
    await ip('link', 'add', hostSide, 'type', 'veth', 'peer', 'name', otherSide, 'netns', namespace);
    await ip('addr', 'add', `${hostAddress}/30`, 'dev', hostSide);
    await ip('link', 'set', hostSide, 'up');
    await inside('addr', 'add', `${address}/30`, 'dev', otherSide);
    await inside('link', 'set', otherSide, 'up');
    await inside('link', 'set', 'lo', 'up');
    await inside('route', 'add', 'default', 'via', hostAddress);
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    description: `network namespace ${namespace} (${address}, routed through ${hostAddress} on this machine)`,
    address,
    connect: (url) => connectFrom(['ip', 'netns', 'exec', namespace, process.execPath], url),
    spawnNode: (args) => spawn('ip', ['netns', 'exec', namespace, process.execPath, ...args], SPAWN_OPTIONS),
    dispose,
  };
}

function ownAddress(): OtherHost | undefined {
  const address = machineAddress();
  if (!address) return undefined;
  return {
    description: `this machine's address ${address} (no network namespace: not root, or no ip netns)`,
    address,
    connect: (url) => connectFrom([process.execPath], url),
    spawnNode: (args) => spawn(process.execPath, args, SPAWN_OPTIONS),
    dispose: async () => undefined,
  };
}

/** A node-postgres client in a process of its own (started through `command`, e.g. `ip netns exec`). */
async function connectFrom(command: string[], url: string): Promise<ConnectOutcome> {
  const script = `
    const pg = require('pg');
    const client = new pg.Client({ connectionString: process.argv[1], connectionTimeoutMillis: ${CONNECT_TIMEOUT_MS} });
    client.on('error', () => undefined);
    client.connect()
      .then(() => client.query('SELECT current_user AS user, host(inet_client_addr()) AS address'))
      .then(({ rows: [row] }) => ({ ok: true, user: row.user, clientAddress: row.address }))
      .catch((error) => ({ ok: false, code: String(error.code), message: String(error.message) }))
      .then((outcome) => { console.log(JSON.stringify(outcome)); return client.end().catch(() => undefined); });
  `;
  const [file = process.execPath, ...args] = command;
  const { stdout } = await run(file, [...args, '-e', script, url], { cwd: PROJECT_ROOT });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ConnectOutcome;
}
