import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  connectFailoverServer,
  createLockServiceSchema,
  promoteStandby,
  readReplicationState,
  standbyHasReplayed,
} from '../../../db/failover-cluster';
import {
  binaries,
  type PgServerProcess,
  postgresUserIds,
  processesOf,
  runAsPostgres,
  startPgServer,
} from './pg-server-process';
import { type ReplicationLink, startReplicationLink } from './replication-link';

/*
 * A primary and a streaming standby of the failover lab's own, with the replication running through
 * a replication link the lab controls (replication-link.ts). The embedded binaries include no pg_basebackup, so the standby is a copy
 * of the primary's data directory taken right after initdb, before either ever ran: both start from
 * the same checkpoint, and the standby streams everything after it (the primary keeps its WAL for
 * that, wal_keep_size). Both data directories live in one directory of the pair's, removed by stop().
 *
 * `sync`: the primary names the standby in synchronous_standby_names, with synchronous_commit=on, so
 * a COMMIT is acknowledged only once the standby has flushed it. `async`: the default of PostgreSQL.
 */

export type ReplicationMode = 'async' | 'sync';

export const STANDBY_NAME = 'fencing_lab_standby';
const STREAMING_TIMEOUT_MS = 30_000;

export type ReplicaPair = {
  mode: ReplicationMode;
  dir: string;
  primary: PgServerProcess;
  standby: PgServerProcess;
  link: ReplicationLink;
  primaryUrl: string;
  standbyUrl: string;
  /** Whether the standby was promoted (the writer is then the standby). */
  promoted(): boolean;
  /** The URL of the server that takes writes now: the primary, or the standby once promoted. */
  writerUrl(): string;
  cutReplication(): void;
  healReplication(): void;
  /** SIGKILL of the primary's postmaster; resolves once none of its processes remains. */
  killPrimary(): Promise<void>;
  promoteStandby(): Promise<void>;
  /** Waits until the standby streams from the primary and has replayed everything the primary wrote. */
  waitForStandby(timeoutMs?: number): Promise<void>;
  /** Every live process of either server (the postmasters, their backends, the keepers). */
  processes(): Promise<number[]>;
  /** Stops both servers and the replication link, and removes the data directories. Idempotent. */
  stop(): Promise<void>;
};

export async function startReplicaPair(options: { mode: ReplicationMode; parentDir?: string }): Promise<ReplicaPair> {
  const ids = await postgresUserIds();
  const { initdb } = await binaries();
  const parent = options.parentDir ?? os.tmpdir();
  await mkdir(parent, { recursive: true });
  if (ids.uid !== undefined) await ensureSearchable(parent);
  const dir = await mkdtemp(path.join(parent, 'fencing-lab-failover-'));
  await chmod(dir, 0o755);
  if (ids.uid !== undefined && ids.gid !== undefined) await chown(dir, ids.uid, ids.gid);
  const primaryDir = path.join(dir, 'primary');
  const standbyDir = path.join(dir, 'standby');
  const password = randomBytes(18).toString('base64url');
  const started: { close(): Promise<void> }[] = [];
  const removeAll = async () => {
    // Tearing down after a failure: each piece is closed whatever became of the others.
    for (const thing of started.reverse()) await thing.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const passwordFile = path.join(dir, 'password');
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (ids.uid !== undefined && ids.gid !== undefined) await chown(passwordFile, ids.uid, ids.gid);
    await runAsPostgres(
      initdb,
      [
        `--pgdata=${primaryDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--no-locale',
        '-E',
        'UTF8',
      ],
      ids,
    );
    await rm(passwordFile, { force: true });
    await runAsPostgres('cp', ['-a', primaryDir, standbyDir], ids);

    const primaryPort = await freePort();
    const primary = await startPgServer({
      dataDir: primaryDir,
      port: primaryPort,
      logFile: path.join(dir, 'primary.log'),
      password,
      ids,
      settings: {
        wal_level: 'replica',
        max_wal_senders: '4',
        wal_keep_size: '256MB',
        synchronous_commit: 'on',
        synchronous_standby_names: options.mode === 'sync' ? STANDBY_NAME : '',
      },
    });
    started.push({ close: () => primary.stop() });
    const link = await startReplicationLink({ port: primaryPort });
    started.push({ close: () => link.close() });

    const conninfo = `host=127.0.0.1 port=${link.port} user=postgres password=${password} application_name=${STANDBY_NAME}`;
    await writeFile(path.join(standbyDir, 'standby.signal'), '');
    await writeFile(path.join(standbyDir, 'postgresql.auto.conf'), `primary_conninfo = '${conninfo}'\n`, {
      mode: 0o600,
    });
    if (ids.uid !== undefined && ids.gid !== undefined) {
      await chown(path.join(standbyDir, 'standby.signal'), ids.uid, ids.gid);
      await chown(path.join(standbyDir, 'postgresql.auto.conf'), ids.uid, ids.gid);
    }
    const standby = await startPgServer({
      dataDir: standbyDir,
      port: await freePort(),
      logFile: path.join(dir, 'standby.log'),
      password,
      ids,
      settings: { hot_standby: 'on', wal_retrieve_retry_interval: '200ms', synchronous_commit: 'on' },
    });
    started.push({ close: () => standby.stop() });

    const urlOf = (port: number) => `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    let promoted = false;
    let stopping: Promise<void> | undefined;
    const pair: ReplicaPair = {
      mode: options.mode,
      dir,
      primary,
      standby,
      link,
      primaryUrl: urlOf(primary.port),
      standbyUrl: urlOf(standby.port),
      promoted: () => promoted,
      writerUrl: () => (promoted ? urlOf(standby.port) : urlOf(primary.port)),
      cutReplication: () => link.cut(),
      healReplication: () => link.heal(),
      killPrimary: () => primary.kill(),
      promoteStandby: async () => {
        const session = await connectFailoverServer(urlOf(standby.port));
        try {
          await promoteStandby(session);
          promoted = true;
        } finally {
          await session.end();
        }
      },
      waitForStandby: (timeoutMs = STREAMING_TIMEOUT_MS) =>
        waitForStandby(urlOf(primary.port), urlOf(standby.port), timeoutMs),
      processes: async () => [...(await processesOf(primaryDir)), ...(await processesOf(standbyDir))],
      stop: () => {
        stopping ??= removeAll();
        return stopping;
      },
    };

    await pair.waitForStandby();
    const session = await connectFailoverServer(pair.primaryUrl);
    try {
      await createLockServiceSchema(session);
    } finally {
      await session.end();
    }
    await pair.waitForStandby();
    return pair;
  } catch (error) {
    await removeAll();
    throw error;
  }
}

async function waitForStandby(primaryUrl: string, standbyUrl: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const primary = await connectFailoverServer(primaryUrl);
  const standby = await connectFailoverServer(standbyUrl);
  try {
    while (Date.now() < deadline) {
      const replication = await readReplicationState(primary);
      if (replication?.state === 'streaming' && (await standbyHasReplayed(primary, standby))) return;
      await sleep(50);
    }
    throw new Error(`the standby did not catch up with the primary within ${timeoutMs / 1000} s`);
  } finally {
    await primary.end();
    await standby.end();
  }
}

/**
 * As root the servers run as `postgres`, which must reach their directories: give each directory on
 * the way search permission only (o+x: enter, not list), as the launcher does for the app's database.
 */
async function ensureSearchable(dir: string): Promise<void> {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const mode = (await stat(current)).mode;
    if ((mode & 0o001) === 0) await chmod(current, (mode & 0o7777) | 0o001);
    if (current === path.dirname(current)) break;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
