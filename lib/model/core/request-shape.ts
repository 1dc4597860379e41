import { escapeXml } from './svg-markup';

/*
 * A request Next itself cannot read, refused in words before Next reads it. Pure: the request hook
 * (proxy.ts) gathers the request's path and a server action's body, and asks here.
 *
 * Left to Next, each of these answered a bare 500 (Next 16.4): a dynamic segment whose percent-
 * encoding is malformed (`/labs/%ff`: Next's own 400 page does not exist in an App Router app);
 * and a server action whose body React cannot decode (not JSON, nested past the stack, or over
 * Next's 1 MB limit, which Next logs as a 413 and answers as a 500). A `__proto__` key React drops
 * without a word, so that the input schemas (strict: lib/model/core/strict-inputs.test.ts) never
 * see it: it is refused here, in the schemas' own words.
 */

export type ShapeRefusal = { status: 400 | 413; message: string };

/** Next's own limit on a server action's body (`serverActions.bodySizeLimit`, left at its default). */
export const ACTION_BODY_LIMIT_BYTES = 1024 * 1024;
/** How deep a server action's input may nest: the app's own inputs nest at most four deep. */
export const ACTION_NESTING_LIMIT = 64;

/** A long address or value quoted in words: its start only. */
function quoted(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The first malformed percent-encoding in a path (`%ff`, `%e0%a4`, `%zz`), or undefined. */
export function malformedEscape(pathname: string): string | undefined {
  const lone = /%(?![0-9a-f]{2})/i.exec(pathname);
  for (const run of pathname.matchAll(/(?:%[0-9a-f]{2})+/gi)) {
    if (lone && lone.index < run.index) break;
    try {
      decodeURIComponent(run[0]);
    } catch {
      // Not UTF-8 once decoded: this run is the one named.
      return quoted(run[0], 24);
    }
  }
  return lone ? pathname.slice(lone.index, lone.index + 3) : undefined;
}

/** Why a path cannot name a page or a route (a malformed percent-encoding), or undefined. */
export function pathRefusal(pathname: string): ShapeRefusal | undefined {
  const bad = malformedEscape(pathname);
  if (bad === undefined) return undefined;
  return {
    status: 400,
    message: `the address ${quoted(pathname)} has a malformed percent-encoding (${bad}): it names nothing on this server`,
  };
}

/**
 * How a refusal of this path is answered: the route handlers' paths (`/api/…`, a soak lab's history
 * download) in their own form, JSON `{ error: { code, message } }` (lib/server/error-answers.ts);
 * every other path is a page a person opened, answered as a page (`refusalPage`).
 */
export function answersAsJson(pathname: string): boolean {
  return /^\/api(\/|$)/.test(pathname) || /^\/soak\/[^/]+\/history(\/|$)/.test(pathname);
}

/** A page for a refused address: what was wrong, and where to go. */
export function refusalPage(status: number, message: string): string {
  const words = escapeXml(message.trim());
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fencing Lab: bad address (${status})</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#1e293b}
a{color:#1d4ed8}</style></head>
<body><main><h1>This address names no page</h1>
<p data-testid="refusal">${words.charAt(0).toUpperCase()}${words.slice(1)}.</p>
<p>Check the address, or <a href="/">go to the home page</a>, where every lab is listed.</p></main></body></html>
`;
}

/**
 * How deep a JSON text nests (brackets and braces outside strings), read without recursion, up to
 * `limit + 1`: a body nested 100,000 deep is measured without a stack.
 */
export function jsonNesting(text: string, limit = ACTION_NESTING_LIMIT): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash: the next character is escaped.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Why one row of a server action's body (React's reply: JSON text) cannot be read, or undefined. */
export function actionRowRefusal(text: string): ShapeRefusal | undefined {
  if (jsonNesting(text) > ACTION_NESTING_LIMIT) {
    return {
      status: 400,
      message: `the input nests deeper than ${ACTION_NESTING_LIMIT} levels: no action of this app takes that`,
    };
  }
  let proto = false;
  try {
    JSON.parse(text, (key, value) => {
      if (key === '__proto__') proto = true;
      return value;
    });
  } catch (error) {
    return {
      status: 400,
      message: `the input is not JSON as a page of this app sends it (${quoted((error as Error).message)}): reload the page and try again`,
    };
  }
  if (proto) return { status: 400, message: 'the input has a field it does not take: __proto__' };
  return undefined;
}

/** The body over the limit, in words: answered 413 before Next reads it. */
export function actionBodyTooLarge(bytes: number | undefined): ShapeRefusal {
  const size = bytes === undefined ? '' : ` (${(bytes / (1024 * 1024)).toFixed(1)} MB)`;
  return {
    status: 413,
    message: `the request's body is too large${size}: a server action takes at most ${ACTION_BODY_LIMIT_BYTES / (1024 * 1024)} MB`,
  };
}

/**
 * The rows of a multipart server action body that React reads as JSON: the fields named by a
 * number (`0`, the root, and the rows it refers to). Fields of a FormData argument carry a prefix
 * (`1_name`) and are the action's own to read.
 */
export function isReplyRow(fieldName: string): boolean {
  return /^\d+$/.test(fieldName);
}
