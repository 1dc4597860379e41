'use strict';
/*
 * Preloaded into the Next server (`--require`, through NODE_OPTIONS set by the launcher): stamps
 * every HTTP request with the address of the TCP peer that sent it, in `x-fencing-lab-peer`,
 * overwriting whatever a client put in that header.
 *
 * Why: `next start` (16.4) only fills `x-forwarded-for` when the request has none
 * (`req.headers['x-forwarded-for'] ??= socket.remoteAddress`), so a client that sends its own
 * X-Forwarded-For chooses the address the app sees. The socket's peer is the one thing a client
 * cannot choose. Route handlers, server actions and proxy.ts run in this same process and read it
 * through lib/server/client-address.ts, which trusts the header only when this file has run
 * (the marker below), never a header alone.
 */
const http = require('node:http');

const HEADER = 'x-fencing-lab-peer';
const MARKER = Symbol.for('fencing-lab.peer-header');

if (!globalThis[MARKER]) {
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function emitWithPeer(event, request, ...rest) {
    if ((event === 'request' || event === 'upgrade') && request?.headers) {
      request.headers[HEADER] = request.socket?.remoteAddress ?? '';
    }
    return emit.call(this, event, request, ...rest);
  };
  globalThis[MARKER] = HEADER;
}
