'use strict';
/*
 * Preloaded into the Next server (`--require`, through NODE_OPTIONS set by the launcher): stamps
 * every HTTP request with the address of the client that sent it, in `x-fencing-lab-peer`,
 * overwriting whatever a client put in that header.
 *
 * Why: `next start` (16.4) only fills `x-forwarded-for` when the request has none
 * (`req.headers['x-forwarded-for'] ??= socket.remoteAddress`), so a client that sends its own
 * X-Forwarded-For chooses the address the app sees. The socket's peer is the one thing a client
 * cannot choose. Behind a reverse proxy listed in FENCING_LAB_TRUSTED_PROXIES (its addresses,
 * comma-separated), the peer is that reverse proxy, and the client is the last X-Forwarded-For
 * hop, the one the reverse proxy appended itself; hops before it are the client's own claims and
 * are never read.
 * Route handlers, server actions and the request hook (proxy.ts) run in this same process and read the header through
 * lib/server/client-address.ts, which trusts it only when this file has run (the marker below).
 */
const http = require('node:http');

const HEADER = 'x-fencing-lab-peer';
const MARKER = Symbol.for('fencing-lab.peer-header');

/** One spelling per address: `::ffff:10.0.0.1` as `10.0.0.1`, lower case. */
function normalise(address) {
  const text = String(address ?? '')
    .trim()
    .toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  return mapped ? mapped[1] : text;
}

const trustedProxies = new Set(
  (process.env.FENCING_LAB_TRUSTED_PROXIES ?? '')
    .split(',')
    .map(normalise)
    .filter((entry) => entry !== ''),
);

function clientOf(request) {
  const peer = normalise(request.socket?.remoteAddress);
  if (!trustedProxies.has(peer)) return peer;
  const forwarded = request.headers['x-forwarded-for'];
  const hops = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',');
  return normalise(hops[hops.length - 1]) || peer;
}

if (!globalThis[MARKER]) {
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function emitWithPeer(event, request, ...rest) {
    if ((event === 'request' || event === 'upgrade') && request?.headers) {
      request.headers[HEADER] = clientOf(request);
    }
    return emit.call(this, event, request, ...rest);
  };
  globalThis[MARKER] = HEADER;
}
