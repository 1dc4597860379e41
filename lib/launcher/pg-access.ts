import { isIP } from 'node:net';

/*
 * Who may reach the embedded PostgreSQL, and from where. On loopback (the default) it listens on
 * 127.0.0.1 only. When the app listens beyond loopback (HOST=0.0.0.0 npm start), PostgreSQL listens
 * there too, and pg_hba.conf lets in from the network only the worker role's members (each person's
 * worker line, 0046; never the local worker role), with a SCRAM password; every other role, the owner included, stays local only. The file is ours: it is
 * written before every start of the server, so a change of HOST between starts changes it too.
 */

/** The room's door: the address the app listens on, and the one role that may log in through it. */
export type RemoteWorkerAccess = { listenOn: string; workerRole: string; localRole: string };

const PLAIN_ROLE = /^[a-z_][a-z0-9_]{0,62}$/;
const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9.-]*$/;

/** PostgreSQL's `listen_addresses` for the app's `HOST`: loopback always, and the app's address when remote. */
export function listenAddressesFor(remote: RemoteWorkerAccess | undefined): string {
  if (!remote) return '127.0.0.1';
  const { listenOn } = remote;
  if (listenOn === '0.0.0.0') return '0.0.0.0';
  if (listenOn === '::' || listenOn === '*') return '*';
  // A name or address of its own (HOST=192.168.1.20): goes into a comma list, so it must be one item.
  if (!isIP(listenOn) && !HOST_NAME.test(listenOn)) {
    throw new Error(`HOST must be an IP address or a host name, got ${JSON.stringify(listenOn)}`);
  }
  return `127.0.0.1,${listenOn}`;
}

/**
 * pg_hba.conf, whose lines PostgreSQL matches in order. Loopback and the unix socket admit every
 * role (with its password), as initdb set it up, but for the worker role's members (each person's
 * worker line, 0046, and the local worker role): they may reach the lab's database only, from here
 * as from anywhere, so that a line used on the server's own machine cannot log in to `postgres` or
 * `template1`, where none of the lab database's limits hold (issue 33: a 1.3 GB temporary table, a
 * sort past the memory watch, a large object that kept the line from being dropped). The owner is a
 * member too (0016) and keeps every database: its lines come first. From anywhere else, only the
 * worker role on the lab's database, with SCRAM, and a reject for the rest, so that a new role added
 * later is refused from the network until this file says otherwise.
 */
export function hbaFor(
  remote: RemoteWorkerAccess | undefined,
  database: string,
  owner: string,
  workerRole: string,
): string {
  // Each role goes into a configuration file: a plain identifier only, nothing the file would parse.
  for (const role of [owner, workerRole, ...(remote ? [remote.workerRole, remote.localRole] : [])]) {
    if (!PLAIN_ROLE.test(role)) throw new Error(`not a plain role name: ${role}`);
  }
  if (!PLAIN_ROLE.test(database)) throw new Error(`not a plain database name: ${database}`);
  const rows: string[][] = [
    ['# TYPE', 'DATABASE', 'USER', 'ADDRESS', 'METHOD'],
    ['local', 'all', owner, '', 'scram-sha-256'],
    ['host', 'all', owner, '127.0.0.1/32', 'scram-sha-256'],
    ['host', 'all', owner, '::1/128', 'scram-sha-256'],
    ['local', database, `+${workerRole}`, '', 'scram-sha-256'],
    ['host', database, `+${workerRole}`, '127.0.0.1/32', 'scram-sha-256'],
    ['host', database, `+${workerRole}`, '::1/128', 'scram-sha-256'],
    ['local', 'all', `+${workerRole}`, '', 'reject'],
    ['host', 'all', `+${workerRole}`, '127.0.0.1/32', 'reject'],
    ['host', 'all', `+${workerRole}`, '::1/128', 'reject'],
    ['local', 'all', 'all', '', 'scram-sha-256'],
    ['host', 'all', 'all', '127.0.0.1/32', 'scram-sha-256'],
    ['host', 'all', 'all', '::1/128', 'scram-sha-256'],
    ['local', 'replication', 'all', '', 'scram-sha-256'],
    ['host', 'replication', 'all', '127.0.0.1/32', 'scram-sha-256'],
    ['host', 'replication', 'all', '::1/128', 'scram-sha-256'],
  ];
  if (remote) {
    // `+role` admits the role's members: each person's worker line (0046). The local worker role and
    // the owner (0016 makes it one, to end worker sessions) are members too, and the network never
    // lets them in: their rejects come first.
    rows.push(
      ['host', 'all', owner, '0.0.0.0/0', 'reject'],
      ['host', 'all', owner, '::/0', 'reject'],
      ['host', 'all', remote.localRole, '0.0.0.0/0', 'reject'],
      ['host', 'all', remote.localRole, '::/0', 'reject'],
      ['host', database, `+${remote.workerRole}`, '0.0.0.0/0', 'scram-sha-256'],
      ['host', database, `+${remote.workerRole}`, '::/0', 'scram-sha-256'],
    );
  }
  rows.push(['host', 'all', 'all', '0.0.0.0/0', 'reject'], ['host', 'all', 'all', '::/0', 'reject']);
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  return [
    '# Written by Fencing Lab before every start of PostgreSQL (lib/launcher/pg-access.ts): edits are lost.',
    remote
      ? `# The app listens beyond loopback: people's worker lines (the worker role's members) may log in from the network, no other role.`
      : '# The app listens on loopback only: so does PostgreSQL, and no role may log in from the network.',
    ...lines,
    '',
  ].join('\n');
}
