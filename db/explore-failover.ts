import 'server-only';
import { randomBytes } from 'node:crypto';
import { FencingError } from '../lib/model/core/errors';
import type { ExploreLab } from '../lib/model/explore/explore-labs';
import type { Replication } from '../lib/model/explore/failover-story';
import { type ExploreResult, explore, type Storage, type Walk, walk } from '../lib/model/explore/search';
import {
  applyStep,
  type ExploreBounds,
  enabledSteps,
  initialState,
  nextValue,
  type Step,
  type StepEvent,
  type StoryStart,
  tokenOf,
  type WriteOutcome,
} from '../lib/model/explore/story';
import { FAILOVER_LAB } from '../lib/model/failover/failover-events';
import { FAILOVER_INITIAL_ROW } from '../lib/model/failover/failover-servers-at';
import { PROTECTED_ROW_SCHEMA, type ProtectedRow, readProtectedRow, writeFencedRow } from './failover-cluster';
import { newClient, toFencingError } from './pool';

/*
 * The failover lab explored (lib/model/explore/failover-story.ts is its story): one owner session,
 * one transaction, never committed, with a scratch server of each kind, each a schema of its own
 * created inside the transaction holding the lab's `fo_rows` as the lock service makes it
 * (PROTECTED_ROW_SCHEMA). A holder's write is the lab's own fenced write (writeFencedRow, its very
 * UPDATE) on the serving server's row: the schema the session's search_path names. The standby
 * catching up is the primary's row copied onto the standby's (what WAL replay does to it); the
 * promotion points the search_path at the standby's schema (SET LOCAL), so that every later write goes
 * there; with synchronous replication an accepted write is copied at once. Each under `SAVEPOINT
 * d<depth>`, and backtracking is `ROLLBACK TO SAVEPOINT`, which undoes the copy and the SET LOCAL
 * too. At the end, ROLLBACK: the schemas are gone, and nothing of the app's own tables was touched.
 *
 * The lease and the token sequence are the story's (pure): a sequence is never rolled back, and the
 * pair's tokens are the sequence's rule (from 1, its WAL record 32 values ahead), not the app's.
 */

type Client = ReturnType<typeof newClient>;

/** A scratch pair's two schemas (gone with the ROLLBACK). */
type ScratchPair = { primary: string; standby: string };

export async function exploreFailoverOnDatabase(input: {
  lab: ExploreLab;
  bounds: ExploreBounds;
}): Promise<{ result: ExploreResult; seconds: number }> {
  const { bounds } = input;
  const replication = replicationOf(input.lab);
  return inScratchPair(replication, async (storage) => {
    const started = performance.now();
    const result = await explore({ bounds, start: startOf(replication), storage, lab: FAILOVER_LAB });
    const seconds = (performance.now() - started) / 1000;
    return { result, seconds };
  });
}

/** One path of the failover story walked on a scratch pair, rolled back (the Explore page's view of a state). */
export async function walkFailoverOnDatabase(input: {
  lab: ExploreLab;
  bounds: ExploreBounds;
  path: readonly number[];
}): Promise<Walk> {
  const replication = replicationOf(input.lab);
  return inScratchPair(replication, (storage) =>
    walk({ bounds: input.bounds, start: startOf(replication), storage, path: input.path, lab: FAILOVER_LAB }),
  );
}

/**
 * `steps` played on a scratch pair in order, each enabled in turn, past any violation (a walk stops at
 * the first): the story's events, and each server's row as the lab's read finds it at the end. For a
 * story told whole, such as the lab's own, whose late write comes after the promotion's loss.
 */
export async function playFailoverOnDatabase(input: {
  lab: ExploreLab;
  bounds: ExploreBounds;
  steps: readonly Step[];
}): Promise<{ events: StepEvent[]; rows: { primary: ProtectedRow; standby: ProtectedRow } }> {
  const replication = replicationOf(input.lab);
  const start = startOf(replication);
  return inScratchPair(replication, async (storage, pair, client) => {
    let state = initialState(input.bounds, start);
    const events: StepEvent[] = [];
    for (const step of input.steps) {
      if (!enabledSteps(state, input.bounds).some((s) => JSON.stringify(s) === JSON.stringify(step))) {
        throw new RangeError(`${JSON.stringify(step)} is not enabled after ${events.length} steps`);
      }
      let written: WriteOutcome | undefined;
      if (step.kind === 'write') {
        const holder = state.holders.find((h) => h.name === step.holder);
        written = await storage.write(state.depth, {
          holder: step.holder,
          token: tokenOf(state, step.holder),
          value: nextValue(state, step.holder),
          ...(holder?.ranOut ? { overdue: true } : {}),
        });
      }
      if (step.kind === 'catch-up' || step.kind === 'promote') await storage.pair?.(state.depth, step.kind);
      const next = applyStep(state, step, start.rule, written);
      state = next.state;
      events.push(next.event);
    }
    const rowOf = async (schema: string) => {
      await client.query(`SET LOCAL search_path TO ${client.escapeIdentifier(schema)}`);
      return readProtectedRow(client);
    };
    return { events, rows: { primary: await rowOf(pair.primary), standby: await rowOf(pair.standby) } };
  });
}

/** The row each of the pair's servers starts with (PROTECTED_ROW_SCHEMA's INSERT), as the explorer's story has it. */
const INITIAL_ROW = { value: FAILOVER_INITIAL_ROW.value, token: Number(FAILOVER_INITIAL_ROW.lastToken) };

const startOf = (replication: Replication): StoryStart => ({
  rule: { tokens: [], writeWith: 'lease-token' },
  row: INITIAL_ROW,
  failover: { replication },
});

function replicationOf(lab: ExploreLab): Replication {
  if (lab.write.table !== 'fo_rows') throw new RangeError(`${lab.title} is not the failover lab`);
  return lab.write.replication;
}

async function inScratchPair<T>(
  replication: Replication,
  run: (storage: Storage, pair: ScratchPair, client: Client) => Promise<T>,
): Promise<T> {
  const client = newClient();
  try {
    await client.connect();
  } catch (error) {
    throw FencingError.unreachable(error);
  }
  try {
    await client.query('BEGIN');
    const pair = await openScratchPair(client);
    return await run(pairStorage(client, pair, replication), pair, client);
  } catch (error) {
    throw toFencingError(error);
  } finally {
    // A failed ROLLBACK: the session ends next, and its transaction with it (nothing was committed).
    await client.query('ROLLBACK').catch(() => undefined);
    // A failed end: the connection is already gone, which is all this asks.
    await client.end().catch(() => undefined);
  }
}

/** The two servers' schemas, each with the lab's fo_rows and its one row; the session writes to the primary's. */
async function openScratchPair(client: Client): Promise<ScratchPair> {
  const suffix = randomBytes(6).toString('hex');
  const pair = { primary: `explore_fo_primary_${suffix}`, standby: `explore_fo_standby_${suffix}` };
  for (const schema of [pair.standby, pair.primary]) {
    const name = client.escapeIdentifier(schema);
    await client.query(`CREATE SCHEMA ${name}; SET LOCAL search_path TO ${name}; ${PROTECTED_ROW_SCHEMA}`);
  }
  // The last one made, the primary's, is the one the session's search_path names: it takes the writes.
  return pair;
}

/** The pair's storage on one transaction: a savepoint per depth, each step under it, rolled back on the way up. */
function pairStorage(client: Client, pair: ScratchPair, replication: Replication): Storage {
  const primary = client.escapeIdentifier(pair.primary);
  const standby = client.escapeIdentifier(pair.standby);
  /** What WAL replay does to the standby's row: the primary's, as it is now. */
  const replay = `UPDATE ${standby}.fo_rows AS s SET value = p.value, last_token = p.last_token FROM ${primary}.fo_rows AS p WHERE s.id = p.id`;
  /** Depths whose savepoint is established (a ROLLBACK TO keeps it; it ends those deeper). */
  const established = new Set<number>();
  /** The shallowest depth to roll back to before the next statement. */
  let pendingUndo: number | undefined;
  let promoted = false;
  /** Whether the serving server is the promoted standby, per depth that promoted it (undone with it). */
  const promotedAt = new Set<number>();

  /** The pending undo and this depth's savepoint, as one statement string. */
  const savepoint = (depth: number): string => {
    let sql = '';
    if (pendingUndo !== undefined) {
      const to = pendingUndo;
      pendingUndo = undefined;
      for (const d of established) if (d > to) established.delete(d);
      for (const d of promotedAt) if (d >= to) promotedAt.delete(d);
      promoted = promotedAt.size > 0;
      sql += `ROLLBACK TO SAVEPOINT d${to}; `;
    }
    if (!established.has(depth)) sql += `SAVEPOINT d${depth}; `;
    established.add(depth);
    for (const deeper of established) if (deeper > depth) established.delete(deeper);
    return sql;
  };

  return {
    async write(depth, write): Promise<WriteOutcome> {
      const sql = savepoint(depth);
      if (sql !== '') await client.query(sql);
      // The lab's own write, on whichever server the search_path names now.
      const written = await writeFencedRow(client, { value: write.value, token: String(write.token) });
      if (!written.accepted) return { outcome: 'stale', storedToken: Number(written.rowToken) };
      // Synchronous: the COMMIT is acknowledged once the standby has the write.
      if (replication === 'sync' && !promoted) await client.query(replay);
      return { outcome: 'accepted' };
    },
    async read() {
      throw new RangeError('the failover lab’s write is one statement: it has no read step');
    },
    async pair(depth, step) {
      const sql = savepoint(depth);
      if (promoted) throw new RangeError(`a ${step} after the promotion: the primary is gone`);
      if (step === 'catch-up') {
        await client.query(`${sql}${replay}`);
        return;
      }
      await client.query(`${sql}SET LOCAL search_path TO ${standby}`);
      promotedAt.add(depth);
      promoted = true;
    },
    async undo(depth) {
      pendingUndo = pendingUndo === undefined ? depth : Math.min(pendingUndo, depth);
    },
  };
}
