import { type NextRequest, NextResponse } from 'next/server';
import { actionOriginRefusal, hostRefusal } from './lib/model/core/hosts';
import {
  ACTION_BODY_LIMIT_BYTES,
  actionBodyTooLarge,
  actionRowRefusal,
  answersAsJson,
  isReplyRow,
  pathRefusal,
  refusalPage,
  type ShapeRefusal,
} from './lib/model/core/request-shape';
import { ownHosts } from './lib/server/own-hosts';

/*
 * The request hook, the server's one door (Next 16's name for middleware, in a file Next names
 * proxy.ts: it runs before every page, route handler, the SSE feed and every server action): a
 * request must name one of our own hosts, and come from one of our own origins when it says where
 * it comes from. Anything else is refused in plain words, before any
 * of the app runs: a page on another site cannot drive or read this server through DNS rebinding.
 * A request Next itself cannot read is refused here in words too, where Next would answer a bare
 * 500 (lib/model/core/request-shape.ts): a malformed percent-encoding in the path, a server action
 * sent to another name than its page's, or whose body is not what a page sends.
 */
export async function proxy(request: NextRequest): Promise<NextResponse> {
  const named = {
    host: request.headers.get('host'),
    forwardedHost: request.headers.get('x-forwarded-host'),
    origin: request.headers.get('origin'),
    fetchSite: request.headers.get('sec-fetch-site'),
    fetchMode: request.headers.get('sec-fetch-mode'),
  };
  const refusal = hostRefusal(named, ownHosts()) && hostRefusal(named, ownHosts({ refresh: true }));
  if (refusal) return inWords(refusal);

  // The path as sent, still percent-encoded.
  const pathname = new URL(request.url).pathname;
  const badPath = pathRefusal(pathname);
  if (badPath) return refusedPath(pathname, badPath);

  if (mayBeAction(request)) {
    const wrongOrigin = actionOriginRefusal(named);
    if (wrongOrigin) return inWords(wrongOrigin);
    const badBody = await actionBodyRefusal(request);
    if (badBody) return inWords({ status: badBody.status, message: `${capitalised(badBody.message)}.\n` });
  }
  return NextResponse.next();
}

function inWords(refusal: { status: number; message: string }): NextResponse {
  return new NextResponse(refusal.message, {
    status: refusal.status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  });
}

function capitalised(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A route handler's path answers as its handlers do (lib/server/error-answers.ts), a page's as a page. */
function refusedPath(pathname: string, refusal: ShapeRefusal): NextResponse {
  const headers = { 'Cache-Control': 'no-store' };
  if (answersAsJson(pathname)) {
    return NextResponse.json(
      { error: { code: 'invalid_input', message: refusal.message } },
      { status: refusal.status, headers },
    );
  }
  return new NextResponse(refusalPage(refusal.status, refusal.message), {
    status: refusal.status,
    headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8' },
  });
}

/** What Next may read as a server action: a POST with `Next-Action`, or a multipart POST (a form's). */
function mayBeAction(request: NextRequest): boolean {
  if (request.method !== 'POST') return false;
  return (
    request.headers.has('next-action') ||
    (request.headers.get('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')
  );
}

/**
 * Why Next could not read this action's body, or undefined. Over Next's limit: 413, by its
 * Content-Length when it gives one, else as it is read (never more than the limit is kept). A
 * fetch action's body is React's reply: JSON text, or multipart with a JSON text per numbered field.
 */
async function actionBodyRefusal(request: NextRequest): Promise<ShapeRefusal | undefined> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > ACTION_BODY_LIMIT_BYTES) return actionBodyTooLarge(declared);
  const bytes = await readAtMost(request, ACTION_BODY_LIMIT_BYTES);
  if (bytes === 'too large') return actionBodyTooLarge(undefined);
  // Only a fetch action's body is React's reply; a form's fields are Next's to read.
  if (!request.headers.has('next-action')) return undefined;
  const contentType = request.headers.get('content-type') ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    return actionRowRefusal(new TextDecoder().decode(bytes));
  }
  let form: FormData;
  try {
    form = await new Response(new Blob([bytes]), { headers: { 'Content-Type': contentType } }).formData();
  } catch {
    // Not multipart as its Content-Type says: refused in words.
    return { status: 400, message: 'the request’s body is not the multipart form its Content-Type says' };
  }
  for (const [name, value] of form.entries()) {
    if (!isReplyRow(name) || typeof value !== 'string') continue;
    const refusal = actionRowRefusal(value);
    if (refusal) return refusal;
  }
  return undefined;
}

/** The request's body (Next hands the hook a copy: the action still reads all of it), or 'too large'. */
async function readAtMost(request: NextRequest, limit: number): Promise<Uint8Array<ArrayBuffer> | 'too large'> {
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined); // the copy only: nothing more is read of it
      return 'too large';
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
