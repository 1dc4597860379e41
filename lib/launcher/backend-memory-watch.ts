import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { endBackend, workerBackendPids } from '../../db/cluster-admin';

/*
 * A worker's memory, capped (issue 33, item 6). work_mem is a user setting: a person holding a worker
 * line may `SET work_mem = '3GB'` and sort: one backend reached 1 GB in 2.9 s, on a machine with no
 * swap, and PostgreSQL has no per-session memory limit. The launcher runs the embedded cluster, so it
 * owns those processes: every WATCH_EVERY_MS it reads the private memory (RssAnon, /proc/<pid>/status:
 * what a sort or a hash allocates, not the shared buffers it touches) of each backend of a worker
 * role's member, and ends one past the cap. With your own PostgreSQL nothing watches: see
 * docs/running-a-room.md, "Your own PostgreSQL".
 */

export const BACKEND_MEMORY_CAP_BYTES = 256 * 1024 * 1024;
const WATCH_EVERY_MS = 200;

export type MemoryWatch = { stop(): Promise<void> };
export type MemoryEnded = { pid: number; bytes: number };

/** The private memory of a process, in bytes (RssAnon), or undefined once it is gone. */
export async function privateMemoryOf(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kb = status && /^RssAnon:\s+(\d+) kB$/m.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : undefined;
}

/**
 * Watches the worker backends of the database `ownerUrl` names until stopped, connecting again
 * whenever the database is away; `onEnded` hears of each backend it ended.
 */
export function watchBackendMemory(
  ownerUrl: string,
  options: { capBytes?: number; everyMs?: number; onEnded: (ended: MemoryEnded) => void },
): MemoryWatch {
  const cap = options.capBytes ?? BACKEND_MEMORY_CAP_BYTES;
  const every = options.everyMs ?? WATCH_EVERY_MS;
  const stopping = new AbortController();
  let client: pg.Client | undefined;
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      try {
        if (!client) {
          const fresh = new pg.Client({ connectionString: ownerUrl, application_name: 'fencing-lab memory watch' });
          // A lost connection is seen by the next query, which starts a new one.
          fresh.on('error', () => undefined);
          await fresh.connect();
          client = fresh;
        }
        for (const pid of await workerBackendPids(client)) {
          const bytes = await privateMemoryOf(pid);
          if (bytes !== undefined && bytes > cap && (await endBackend(client, pid))) options.onEnded({ pid, bytes });
        }
      } catch {
        // The database is away or restarting (its own watchdog says so): the next pass connects again.
        await client?.end().catch(() => undefined);
        client = undefined;
      }
      await sleep(every, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
      await client?.end().catch(() => undefined);
    },
  };
}
