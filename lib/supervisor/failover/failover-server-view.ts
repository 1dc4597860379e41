import 'server-only';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  connectFailoverServer,
  type FailoverSession,
  type ProtectedRow,
  readLease,
  readProtectedRow,
  readTokenSequence,
} from '../../../db/failover-cluster';
import { LOCK_RESOURCE } from './failover-story';
import { processesOf } from './pg-server-process';

/* What one server of the failover pair holds now, for the lab's page; and the directories a killed app server left. */

export type ServerView = {
  role: 'primary' | 'standby' | 'promoted standby';
  running: boolean;
  row?: ProtectedRow;
  lease?: { holder: string; token: string; expiresInMs: number };
  sequence?: { lastValue: string; logCount: number };
};

export async function serverView(url: string, role: ServerView['role'], running: boolean): Promise<ServerView> {
  if (!running) return { role, running };
  let session: FailoverSession | undefined;
  try {
    session = await connectFailoverServer(url, { timeoutMs: 1_000 });
    const lease = await readLease(session, LOCK_RESOURCE);
    return {
      role,
      running,
      row: await readProtectedRow(session),
      ...(lease
        ? {
            lease: {
              holder: lease.holder,
              token: lease.token,
              expiresInMs: Math.max(0, lease.expiresAt.getTime() - Date.now()),
            },
          }
        : {}),
      sequence: await readTokenSequence(session),
    };
  } catch {
    // The server is down or starting: its view says only its role and whether it runs.
    return { role, running };
  } finally {
    // A session on a killed server has nothing to end.
    await session?.end().catch(() => undefined);
  }
}

/** Pair directories a killed server left behind (its keepers ended the servers, not the files). */
export async function removeLeftoverDirs(parentDir: string): Promise<void> {
  // No parent folder: nothing left behind.
  const entries = await readdir(parentDir).catch(() => [] as string[]);
  for (const entry of entries.filter((name) => name.startsWith('fencing-lab-failover-'))) {
    const dir = path.join(parentDir, entry);
    const alive = [
      ...(await processesOf(path.join(dir, 'primary'))),
      ...(await processesOf(path.join(dir, 'standby'))),
    ];
    if (alive.length === 0) await rm(dir, { recursive: true, force: true });
  }
}
