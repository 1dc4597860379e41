import { type NextRequest, NextResponse } from 'next/server';
import { hostRefusal } from './lib/model/core/hosts';
import { ownHosts } from './lib/server/own-hosts';

/*
 * The request hook, the server's one door (Next 16's name for middleware, in a file Next names
 * proxy.ts: it runs before every page, route handler, the SSE feed and every server action): a
 * request must name one of our own hosts, and come from one of our own origins when it says where
 * it comes from. Anything else is refused in plain words, before any
 * of the app runs: a page on another site cannot drive or read this server through DNS rebinding.
 */
export function proxy(request: NextRequest): NextResponse {
  const named = {
    host: request.headers.get('host'),
    forwardedHost: request.headers.get('x-forwarded-host'),
    origin: request.headers.get('origin'),
    fetchSite: request.headers.get('sec-fetch-site'),
    fetchMode: request.headers.get('sec-fetch-mode'),
  };
  const refusal = hostRefusal(named, ownHosts()) && hostRefusal(named, ownHosts({ refresh: true }));
  if (!refusal) return NextResponse.next();
  return new NextResponse(refusal.message, {
    status: refusal.status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  });
}
