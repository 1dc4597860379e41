/*
 * Only our own hosts: which `Host` (and `Origin`) a request may name. A page on another site that
 * reaches this server through DNS rebinding sends its own name in `Host` (and `Origin`), never one
 * of ours, so refusing unknown names closes that door. Pure: the server gathers its names
 * (lib/server/own-hosts.ts), the request hook (proxy.ts) asks here.
 */

/** The names a server answers to, as lower-case `name:port` (or a bare `name` when no port is needed). */
export type OwnHosts = ReadonlySet<string>;

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);

/** `name` as it appears in a Host header: lower case, IPv6 in brackets, no trailing dot. */
function hostName(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

/** Splits an allowed-hosts entry or a Host header into its name and port (if any). */
export function splitAuthority(authority: string): { name: string; port?: string } {
  const text = authority.trim().toLowerCase();
  const bracketed = /^(\[[^\]]*\])(?::(\d+))?$/.exec(text);
  if (bracketed) return { name: bracketed[1] as string, ...(bracketed[2] ? { port: bracketed[2] } : {}) };
  const colons = text.split(':').length - 1;
  if (colons === 1) {
    const [name, port] = text.split(':') as [string, string];
    return { name: hostName(name), ...(port ? { port } : {}) };
  }
  return { name: hostName(text) };
}

/**
 * The server's own names: the loopback names, the address it listens on (when it is not a
 * wildcard), the addresses of this machine when it listens on all of them, and the names the
 * operator allowed (FENCING_LAB_ALLOWED_HOSTS). Loopback and listen names count with the server's
 * port; an allowed entry without a port counts with or without it (behind a reverse proxy).
 */
export function ownHostsOf(input: {
  port: string;
  listenHost: string;
  machineAddresses: readonly string[];
  machineNames: readonly string[];
  allowed: readonly string[];
}): OwnHosts {
  const hosts = new Set<string>();
  const withPort = (name: string) => {
    hosts.add(`${hostName(name)}:${input.port}`);
    // A browser leaves the default port out of Host.
    if (input.port === '80' || input.port === '443') hosts.add(hostName(name));
  };
  for (const name of LOOPBACK_NAMES) withPort(name);
  if (WILDCARDS.has(input.listenHost.trim())) {
    for (const name of [...input.machineAddresses, ...input.machineNames]) withPort(name);
  } else {
    withPort(input.listenHost);
  }
  for (const entry of input.allowed) {
    if (entry.trim() === '') continue;
    const { name, port } = splitAuthority(entry);
    if (port) hosts.add(`${name}:${port}`);
    else {
      hosts.add(name);
      withPort(name);
    }
  }
  return hosts;
}

function isOwn(authority: string, own: OwnHosts): boolean {
  const { name, port } = splitAuthority(authority);
  return own.has(port ? `${name}:${port}` : name);
}

export type HostRefusal = { status: 421 | 403; message: string };

/**
 * Why a request must be refused, or undefined: its Host (and X-Forwarded-Host, which Next trusts
 * for server actions) must be one of ours, and so must the host of its Origin when it has one.
 */
export function hostRefusal(
  request: {
    host: string | null;
    forwardedHost: string | null;
    origin: string | null;
    /** Sec-Fetch-Site and Sec-Fetch-Mode, which browsers set and pages cannot. */
    fetchSite?: string | null;
    fetchMode?: string | null;
  },
  own: OwnHosts,
): HostRefusal | undefined {
  const forwarded = request.forwardedHost?.split(',')[0]?.trim();
  if (!request.host || !isOwn(request.host, own) || (forwarded && !isOwn(forwarded, own))) {
    return {
      status: 421,
      message:
        'This Fencing Lab server answers only to its own host names (localhost, its address, and FENCING_LAB_ALLOWED_HOSTS). Open it by one of those, or ask whoever runs it to add this name to FENCING_LAB_ALLOWED_HOSTS.\n',
    };
  }
  // A page elsewhere that loads our feed or a route as an image or a script sends no Origin, but
  // its browser says where it comes from: only a person following a link may come from elsewhere.
  if (request.fetchSite === 'cross-site' && request.fetchMode !== 'navigate') {
    return {
      status: 403,
      message: 'This Fencing Lab server does not answer requests made by other sites’ pages; open it directly.\n',
    };
  }
  if (request.origin !== null) {
    let originHost: string | undefined;
    try {
      originHost = new URL(request.origin).host;
    } catch {
      // An Origin that is not a URL matches no host: refused below.
      originHost = undefined;
    }
    if (!originHost || !isOwn(originHost, own)) {
      return {
        status: 403,
        message: 'This Fencing Lab server accepts requests only from its own pages (the Origin is another site).\n',
      };
    }
  }
  return undefined;
}

/**
 * Why a server action must be refused although its Host and Origin are both ours, or undefined:
 * Next runs an action only when its Origin's host is exactly the host it was sent to (the first
 * X-Forwarded-Host, else Host, as written), and answers any other with a bare 500. Asked for a
 * request Next may read as an action (a POST with `Next-Action`, or a multipart POST).
 */
export function actionOriginRefusal(request: {
  host: string | null;
  forwardedHost: string | null;
  origin: string | null;
}): HostRefusal | undefined {
  if (request.origin === null) return undefined; // a script's request: Next lets it through, and so do we
  let originHost: string | undefined;
  try {
    originHost = new URL(request.origin).host;
  } catch {
    // An Origin that is not a URL: hostRefusal has refused it already.
    originHost = undefined;
  }
  const sentTo = request.forwardedHost?.split(',')[0]?.trim() || request.host || '';
  if (originHost === sentTo) return undefined;
  return {
    status: 403,
    message: `This Fencing Lab server runs a page's action only when the page was opened by the name the action is sent to: the page is ${originHost ?? 'not named'}, the action went to ${sentTo || 'no host'}. Open the app by one name and use it from there.\n`,
  };
}
