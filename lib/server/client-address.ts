import 'server-only';
import { headers } from 'next/headers';

/*
 * The client's address for a request: what per-address limits (opening labs, feed connections)
 * count by. Only what a client cannot choose: the TCP peer (or, for a peer listed in
 * FENCING_LAB_TRUSTED_PROXIES, the hop that proxy appended), stamped on the request by
 * lib/server/peer-address.cjs, which the launcher preloads into the Next server. `next start`
 * keeps a client-supplied X-Forwarded-For as it is (it fills the header only when missing), so
 * that header is never trusted while the preload is active.
 *
 * Without the preload (a Next server started by hand, not by `npm start`/`npm run dev`), the last
 * X-Forwarded-For hop is the best there is; it is spoofable, and `peerAddressIsTrusted()` says so.
 */

const PEER_HEADER = 'x-fencing-lab-peer';
const MARKER = Symbol.for('fencing-lab.peer-header');

/** The address when nothing names one (a request that did not come over a socket). */
const UNKNOWN_ADDRESS = 'unknown';

type HeaderSource = Pick<Headers, 'get'>;

/** True when the peer address comes from the socket (the preload ran in this process). */
export function peerAddressIsTrusted(): boolean {
  return (globalThis as Record<symbol, unknown>)[MARKER] === PEER_HEADER;
}

/** The client's address from request headers (a route handler's `request.headers`, or `headers()`). */
export function clientAddressOf(source: HeaderSource): string {
  if (peerAddressIsTrusted()) return normaliseAddress(source.get(PEER_HEADER));
  const hops = (source.get('x-forwarded-for') ?? '').split(',');
  return normaliseAddress(hops[hops.length - 1]);
}

/** The client's address for a route handler. */
export function clientAddressOfRequest(request: Request): string {
  return clientAddressOf(request.headers);
}

/** The client's address for a server action or a server component. */
export async function currentClientAddress(): Promise<string> {
  return clientAddressOf(await headers());
}

/** One spelling per address: IPv4-mapped IPv6 (`::ffff:127.0.0.1`) as IPv4, lower case, no brackets. */
export function normaliseAddress(raw: string | null | undefined): string {
  const address = (raw ?? '')
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (address === '') return UNKNOWN_ADDRESS;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  return mapped ? (mapped[1] as string) : address;
}
