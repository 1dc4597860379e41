/*
 * The files a trainee may save from the room's app, so that a laptop with Python alone (no checkout
 * of Fencing Lab) can run its own lock client: the runner, the reference clients and the protocol
 * they speak. Each is named here and found by its name on the server (lib/server/client-files.ts),
 * never by a path a client sends.
 */

/** A name the room serves at `/clients/<name>`, and the project's file it is. */
export const CLIENT_FILES = {
  'runner.py': 'clients/python/runner.py',
  'minimal.py': 'clients/python/minimal.py',
  'worker.py': 'clients/python/worker.py',
  'worker.sh': 'clients/psql/worker.sh',
  'protocol.md': 'docs/protocol.md',
} as const;

export type ClientFileName = keyof typeof CLIENT_FILES;
export const CLIENT_FILE_NAMES = Object.keys(CLIENT_FILES) as [ClientFileName, ...ClientFileName[]];

/** Where a page links to one, on the app's own origin. */
export const clientFileHref = (name: ClientFileName): string => `/clients/${name}`;
