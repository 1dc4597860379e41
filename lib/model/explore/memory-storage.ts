import type { Storage, StorageWrite } from './search';
import type { WriteOutcome } from './story';

/*
 * A storage in memory, with the fenced write's rule or another: for the explorer's own tests, which
 * must run without a database, and to tell a fault of the search from a fault of the SQL. The real
 * storage is db/explore.ts.
 */

/** May a write with `token` replace a row whose last write carried `stored`? */
export type WritePredicate = (stored: number, token: number) => boolean;

export const FENCED_PREDICATE: WritePredicate = (stored, token) => stored <= token;
export const NO_CHECK: WritePredicate = () => true;

export function memoryStorage(
  predicate: WritePredicate,
  row: { value: string; token: number },
): Storage & { row(): { value: string; token: number } } {
  /** The row before each depth's write, for its undo. */
  const saved = new Map<number, { value: string; token: number }>();
  let current = { ...row };
  return {
    async write(depth: number, write: StorageWrite): Promise<WriteOutcome> {
      saved.set(depth, current);
      // A split write (read-check-write): the app compared with what it read, and writes without a check.
      const allowed =
        write.checked === undefined ? predicate(current.token, write.token) : write.token >= write.checked;
      if (!allowed) return { outcome: 'stale', storedToken: current.token };
      current = { value: write.value, token: write.token };
      return { outcome: 'accepted' };
    },
    async read(): Promise<number> {
      return current.token;
    },
    async undo(depth: number): Promise<void> {
      const before = saved.get(depth);
      if (before) current = before;
      saved.delete(depth);
    },
    row: () => current,
  };
}

/**
 * The failover lab's pair in memory: a row per server, the fenced rule on the serving one; a catch-up
 * copies the primary's row to the standby, the promotion makes the standby's the one written, and with
 * synchronous replication an accepted write is on the standby at once. The real one: db/explore-failover.ts.
 */
export function pairMemoryStorage(
  replication: 'async' | 'sync',
  row: { value: string; token: number },
): Storage & { rows(): { primary: Row; standby: Row; promoted: boolean } } {
  type Pair = { primary: Row; standby: Row; promoted: boolean };
  const saved = new Map<number, Pair>();
  let current: Pair = { primary: { ...row }, standby: { ...row }, promoted: false };
  const save = (depth: number) => saved.set(depth, current);
  return {
    async write(depth: number, write: StorageWrite): Promise<WriteOutcome> {
      save(depth);
      const serving = current.promoted ? current.standby : current.primary;
      if (!FENCED_PREDICATE(serving.token, write.token)) return { outcome: 'stale', storedToken: serving.token };
      const written = { value: write.value, token: write.token };
      current = current.promoted
        ? { ...current, standby: written }
        : { ...current, primary: written, ...(replication === 'sync' ? { standby: written } : {}) };
      return { outcome: 'accepted' };
    },
    async read(): Promise<number> {
      return (current.promoted ? current.standby : current.primary).token;
    },
    async pair(depth: number, step: 'catch-up' | 'promote'): Promise<void> {
      save(depth);
      current = step === 'catch-up' ? { ...current, standby: { ...current.primary } } : { ...current, promoted: true };
    },
    async undo(depth: number): Promise<void> {
      const before = saved.get(depth);
      if (before) current = before;
      saved.delete(depth);
    },
    rows: () => current,
  };
}

type Row = { value: string; token: number };
