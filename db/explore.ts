import 'server-only';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { FencingError } from '../lib/model/core/errors';
import { type ExploreLab, TEXT_EPOCH_FIRST_TOKEN, tokenRuleOf } from '../lib/model/explore/explore-labs';
import {
  type ExploreCounts,
  type ExploreResult,
  explore,
  type Storage,
  type StorageWrite,
  type Walk,
  walk,
} from '../lib/model/explore/search';
import { type ExploreBounds, HOLDER_NAMES, type StoryStart, type WriteOutcome } from '../lib/model/explore/story';
import type { ExploreSetting } from '../lib/model/guard/guard-probes';
import { privateLabIdFrom, privateResourceOf } from '../lib/model/lab/lab-instance';
import { exploreFailoverOnDatabase, walkFailoverOnDatabase } from './explore-failover';
import { newClient, toFencingError } from './pool';
import { ourSqlstate } from './sqlstates';
import { GUARD_STATEMENT_TIMEOUT_MS } from './your-guard';

/*
 * The explorer's one door to the database (lib/model/explore/ is the search): one owner session, one
 * transaction, never committed. Inside it a private lab of the kind, opened as a browser opens one, on a
 * scratch row made the way the lab makes its own (the fenced lab's through fl_create_protected_row, born
 * at the sequence's high-water mark H, with stand-in grants of its tokens in lease_grants, since the
 * fenced write takes only a token granted for the lab's lease; a broken lab's in unguarded_rows). Then each
 * storage step is the lab's real write SQL under `SAVEPOINT d<depth>`, and backtracking is
 * `ROLLBACK TO SAVEPOINT`. At the end, ROLLBACK: the lab's own rows, events and leases are untouched.
 *
 * Tokens: a sequence is never rolled back, so the fenced lab's block is reserved once with nextval
 * (H+1 …, one per holder: it raises the high-water mark the row's trigger checks) and the explorer
 * mints from that block itself, by the same rule. The broken labs' rows are their own and start at 0.
 *
 * One round trip per write: the pending undo, the savepoint and the write go as one simple query
 * (its values are a small integer, a holder's name and a value the explorer made, quoted by pg).
 */

/** A planted bug in the fenced predicate (fl_may_write's 'fenced' branch), for the explorer's own tests. */
export type PlantedPredicate = '<' | '>=' | 'true';

const FENCED_BRANCH = "WHEN 'fenced' THEN p_stored <= p_token";
const PLANTED_BRANCH: Record<PlantedPredicate, string> = {
  '<': "WHEN 'fenced' THEN p_stored < p_token",
  '>=': "WHEN 'fenced' THEN p_stored >= p_token",
  true: "WHEN 'fenced' THEN true",
};

export type DatabaseExploration = {
  result: ExploreResult;
  seconds: number;
  /** The sessions it ran on side by side. */
  sessions: number;
  /** The scratch row's table and id (gone with the ROLLBACK), and the block of tokens reserved. */
  row: { table: ExploreLab['write']['table']; id: number };
  reserved: number[];
};

/**
 * A guard's exploration: the counts summed over the settings explored (each every interleaving of the
 * bounds), and the shortest counterexample of the first setting that broke (the last one explored).
 */
export type GuardExploration = DatabaseExploration & { settings: ExploreSetting[] };

const addCounts = (a: ExploreCounts, b: ExploreCounts): ExploreCounts => ({
  states: a.states + b.states,
  interleavings: a.interleavings + b.interleavings,
  broken: a.broken + b.broken,
  cut: a.cut + b.cut,
  duplicates: a.duplicates + b.duplicates,
  storageSteps: a.storageSteps + b.storageSteps,
  refused: a.refused + b.refused,
});

type Client = ReturnType<typeof newClient>;

export async function exploreOnDatabase(input: {
  lab: ExploreLab;
  bounds: ExploreBounds;
  planted?: PlantedPredicate;
  /** Sessions side by side (default two); one for a test that wants the search as it runs alone. */
  sessions?: number;
}): Promise<DatabaseExploration> {
  const { lab, bounds } = input;
  if (lab.write.table === 'fo_rows') {
    // The failover lab's pair: two scratch servers' rows, no row of the app's and no tokens reserved.
    const explored = await exploreFailoverOnDatabase({ lab, bounds });
    return { ...explored, sessions: 1, row: { table: 'fo_rows', id: 1 }, reserved: [] };
  }
  return inScratchTransaction(
    lab,
    bounds.holders,
    input.planted,
    async (scratch, storage, moreStorages) => {
      const started = performance.now();
      const result = await explore({ bounds, start: startOf(lab, scratch), storage, moreStorages, lab: scratch.lab });
      const seconds = (performance.now() - started) / 1000;
      return {
        result,
        seconds,
        sessions: 1 + moreStorages.length,
        row: { table: lab.write.table, id: scratch.rowId },
        reserved: scratch.reserved,
      };
    },
    // A planted bug replaces a function in its transaction: a second session would wait on that
    // uncommitted change until the first one ends.
    input.planted ? 1 : (input.sessions ?? EXPLORE_SESSIONS),
  );
}

/**
 * A your-guard lab's own guard (the trainee's statement), explored: every interleaving of its story up
 * to the bounds, each write `fl_your_guard_write` on the lab's own row as a worker's write runs it
 * (under the guard's statement timeout), in one transaction rolled back. The row is put back first as a
 * reset puts it (token 0, the counter at 8, so the grants are 9, 10, 11: across the digit boundary the
 * attack's story crosses), and each holder's possible grants stand in as events, since the guard's write
 * takes only a token granted to its writer in the lab. With settings (lib/model/guard/guard-probes.ts
 * exploreSettings), the same again from each setting's first token and with its value, each under a
 * savepoint of its own, until one breaks. Nothing of the lab changes; while it runs, the
 * lab's events and row wait for it (the attack's workers have stopped by then).
 */
export async function exploreGuardOnDatabase(input: {
  lab: string;
  bounds: ExploreBounds;
  /** The explorations to run, one after another until one breaks (default: the story's, grants from 9). */
  settings?: readonly ExploreSetting[];
}): Promise<GuardExploration> {
  const { bounds } = input;
  const settings = input.settings?.length ? input.settings : [{ firstToken: TEXT_EPOCH_FIRST_TOKEN }];
  const client = newClient();
  try {
    await client.connect();
  } catch (error) {
    throw FencingError.unreachable(error);
  }
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL statement_timeout = ${GUARD_STATEMENT_TIMEOUT_MS}`);
    const { rows } = await client.query<{ row_id: number }>('SELECT row_id FROM fl_your_guard_lab($1)', [input.lab]);
    const rowId = (rows[0] as { row_id: number }).row_id;
    const started = performance.now();
    let total: ExploreCounts | undefined;
    const explored: ExploreSetting[] = [];
    let last: DatabaseExploration | undefined;
    for (const setting of settings) {
      // Each setting from the same start: the row as a reset leaves it, its own stand-in grants.
      await client.query('SAVEPOINT setting');
      await client.query('SELECT fl_reset_unguarded_row($1, $2)', [input.lab, INITIAL_VALUE]);
      const reserved = Array.from({ length: bounds.holders }, (_, i) => setting.firstToken + i);
      await standInGrants(client, input.lab, bounds.holders, reserved);
      const scratch: Scratch = {
        lab: input.lab,
        rowId,
        value: INITIAL_VALUE,
        token: 0,
        reserved,
        write: { table: 'guarded_row' },
      };
      const result = await explore({
        bounds,
        start: {
          rule: { tokens: reserved, writeWith: 'lease-token' },
          row: { value: INITIAL_VALUE, token: 0 },
          ...(setting.value === undefined ? {} : { value: setting.value }),
        },
        storage: savepointStorage(client, scratch),
        lab: input.lab,
      });
      await client.query('ROLLBACK TO SAVEPOINT setting');
      explored.push(setting);
      total = total ? addCounts(total, result.counts) : result.counts;
      last = {
        result: { ...result, counts: total },
        seconds: 0,
        sessions: 1,
        row: { table: 'guarded_row', id: rowId },
        reserved,
      };
      if (result.shortest) break;
    }
    const seconds = (performance.now() - started) / 1000;
    return { ...(last as DatabaseExploration), seconds, settings: explored };
  } catch (error) {
    throw toFencingError(error);
  } finally {
    // A failed ROLLBACK: the session ends next, and its transaction with it (nothing was committed).
    await client.query('ROLLBACK').catch(() => undefined);
    // A failed end: the connection is already gone, which is all this asks.
    await client.end().catch(() => undefined);
  }
}

/**
 * One path of the lab's story walked on the database (the Explore page's view of a state), in the
 * same kind of transaction, rolled back: each write the lab's real SQL. Returns the walk and the
 * story's start, so that a caller can turn a counterexample's steps into a path (stepIndexes).
 */
export async function walkOnDatabase(input: {
  lab: ExploreLab;
  bounds: ExploreBounds;
  path: readonly number[];
}): Promise<Walk> {
  const { lab, bounds } = input;
  if (lab.write.table === 'fo_rows') return walkFailoverOnDatabase({ lab, bounds, path: input.path });
  return inScratchTransaction(lab, bounds.holders, undefined, (scratch, storage) =>
    walk({ bounds, start: startOf(lab, scratch), storage, path: input.path, lab: scratch.lab }),
  );
}

const startOf = (lab: ExploreLab, scratch: Scratch): StoryStart => ({
  rule: tokenRuleOf(lab, scratch.reserved),
  row: { value: scratch.value, token: scratch.token },
  ...(lab.write.table === 'unguarded_rows' && lab.write.mode === 'app-check' ? { checkFirst: true } : {}),
});

/**
 * The sessions an exploration runs side by side (search.ts takes shallow states' next steps on
 * whichever is free): three. On one session the database waits while the search judges a step, and
 * the other way round; on this 2-CPU machine, fenced 3 × 3 ran 1,262–1,582 writes a second on one
 * session, 1,678–2,111 on two, 2,071–2,277 on three, 2,199–2,361 on four (docs/explore.md).
 */
const EXPLORE_SESSIONS = 3;

/**
 * Owner sessions, each one transaction with a scratch row of the lab's kind, never committed. Tokens
 * are unique in lease_grants, so each session of the fenced lab has a block of its own, born and
 * reserved after the one before: the story is told in the first session's tokens, and each other
 * session's storage turns them into its own (its row's birth for the first's, its block's nth for the
 * first's nth). The map keeps their order, and a write's outcome depends on nothing else.
 */
async function inScratchTransaction<T>(
  lab: ExploreLab,
  holders: number,
  planted: PlantedPredicate | undefined,
  run: (scratch: Scratch, storage: Storage, more: Storage[]) => Promise<T>,
  sessions = 1,
): Promise<T> {
  const clients: Client[] = [];
  try {
    for (let i = 0; i < sessions; i++) {
      const client = newClient();
      clients.push(client);
      await client.connect();
    }
  } catch (error) {
    // A session that cannot end is already gone; the failure to connect is what is thrown.
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    throw FencingError.unreachable(error);
  }
  try {
    const scratches: Scratch[] = [];
    for (const client of clients) {
      await client.query('BEGIN');
      if (planted) await plantPredicate(client, planted);
      const born = await createScratchRow(client, lab);
      const reserved = await reserveTokens(client, lab, holders);
      scratches.push(await finishScratchRow(client, lab, born, holders, reserved));
    }
    const [scratch, ...others] = scratches as [Scratch, ...Scratch[]];
    const storage = savepointStorage(clients[0] as Client, scratch);
    const more = others.map((other, i) =>
      savepointStorage(clients[i + 1] as Client, other, tokenMapOf(scratch, other)),
    );
    return await run(scratch, storage, more);
  } catch (error) {
    throw toFencingError(error);
  } finally {
    for (const client of clients) {
      // A failed ROLLBACK: the session ends next, and its transaction with it (nothing was committed).
      await client.query('ROLLBACK').catch(() => undefined);
      // A failed end: the connection is already gone, which is all this asks.
      await client.end().catch(() => undefined);
    }
  }
}

/** Another session's tokens for the first session's: the rows' births, then each block's nth token. */
function tokenMapOf(first: Scratch, other: Scratch): TokenMap {
  const pairs: [number, number][] = [
    [first.token, other.token],
    ...first.reserved.map((token, i): [number, number] => [token, other.reserved[i] as number]),
  ];
  return { own: new Map(pairs), story: new Map(pairs.map(([a, b]) => [b, a])) };
}

/** The first session's tokens (the story's) to a session's own, and back. */
type TokenMap = { own: Map<number, number>; story: Map<number, number> };

/** The lab's own fl_may_write, with its 'fenced' branch replaced, inside the explorer's transaction only. */
async function plantPredicate(client: Client, planted: PlantedPredicate): Promise<void> {
  const real = await readFile(new URL('./functions/fl_may_write.sql', import.meta.url), 'utf8');
  if (!real.includes(FENCED_BRANCH)) {
    throw new FencingError('invalid_input', 'fl_may_write no longer has the fenced branch a planted bug replaces');
  }
  await client.query(real.replace(FENCED_BRANCH, PLANTED_BRANCH[planted]));
}

type Scratch = {
  lab: string;
  rowId: number;
  value: string;
  token: number;
  reserved: number[];
  /** A lab of one row in the app's database (the failover lab's pair is db/explore-failover.ts). */
  write: Exclude<ExploreLab['write'], { table: 'fo_rows' }>;
};

const INITIAL_VALUE = 'initial';

/** A scratch row made the lab's way, and the id of the private lab that will own it. */
type Born = { id: string; rowId: number; token: number };

async function createScratchRow(client: Client, lab: ExploreLab): Promise<Born> {
  // A private lab of the kind, opened inside the transaction as db/labs.ts createPrivateLab opens one:
  // the write functions ask the lab that owns the row for its kind, mode and lease.
  const id = privateLabIdFrom(randomBytes(10));
  if (lab.write.table === 'protected_rows') {
    const { rows } = await client.query<{ id: number; last_token: string }>(
      'SELECT id, last_token FROM fl_create_protected_row($1)',
      [INITIAL_VALUE],
    );
    const row = rows[0] as { id: number; last_token: string };
    return { id, rowId: row.id, token: Number(row.last_token) };
  }
  const { rows } = await client.query<{ id: number }>(
    `INSERT INTO unguarded_rows (id, lab, value, last_token, last_token_text)
     VALUES (nextval('unguarded_row_ids'), $1, $2, 0, '0') RETURNING id`,
    [id, INITIAL_VALUE],
  );
  return { id, rowId: (rows[0] as { id: number }).id, token: 0 };
}

/**
 * The tokens the holders' grants take: for the fenced lab a block reserved with nextval (above every
 * scratch row's birth: the row's trigger refuses only tokens above the high-water mark, which the
 * reservation raised); a broken lab's rows are their own, from 1.
 */
async function reserveTokens(client: Client, lab: ExploreLab, holders: number): Promise<number[]> {
  if (lab.write.table !== 'protected_rows') return Array.from({ length: holders }, (_, i) => i + 1);
  const { rows: block } = await client.query<{ token: string }>(
    "SELECT nextval('write_epoch') AS token FROM generate_series(1, $1)",
    [holders],
  );
  return block.map((b) => Number(b.token)).sort((a, b) => a - b);
}

async function finishScratchRow(
  client: Client,
  lab: ExploreLab,
  born: Born,
  holders: number,
  reserved: number[],
): Promise<Scratch> {
  const write = lab.write;
  if (write.table === 'fo_rows')
    throw new RangeError('the failover lab is explored on its pair (db/explore-failover.ts)');
  const { id, rowId } = born;
  const resource = privateResourceOf(id);
  await client.query(
    `INSERT INTO labs (id, kind, row_id, resource, visibility, owner_hash, opened_from, last_used_at, join_key)
     VALUES ($1, $2, $3, $4, 'private', 'explore', 'explore', clock_timestamp(), NULL)`,
    [id, lab.kind, rowId, resource],
  );
  if (lab.ownGrantOnly) {
    // The lab's write takes only a token granted to its writer in the lab (fl_broken_write, own_grant_only):
    // every grant a path may make stands in as an event of the scratch lab, rolled back with it.
    await standInGrants(client, id, holders, reserved);
  }
  if (lab.write.table === 'protected_rows') {
    // The fenced write takes only a token granted for the lab's lease (lease_grants): the block's
    // grants, as fl_acquire_lease records them, stand in for the grants the explorer makes itself.
    await client.query(
      `INSERT INTO lease_grants (token, resource, lab, holder)
       SELECT t, $2, $3, 'explorer' FROM unnest($1::bigint[]) AS t`,
      [reserved, resource, id],
    );
  }
  return { lab: id, rowId, value: INITIAL_VALUE, token: born.token, reserved, write };
}

/**
 * Every grant a path may make, each holder with each token, as lease_acquired events of `lab` (rolled
 * back with the transaction): for a write that takes only a token granted to its writer in the lab
 * (own_grant_only, and the your-guard lab's write). The explorer's grants are its own steps.
 */
async function standInGrants(client: Client, lab: string, holders: number, tokens: readonly number[]): Promise<void> {
  await client.query(
    `INSERT INTO events (lab, actor, kind, token, detail)
     SELECT $1, h, 'lease_acquired', t, '{"explorer":true}'::jsonb FROM unnest($2::text[]) AS h, unnest($3::bigint[]) AS t`,
    [lab, HOLDER_NAMES.slice(0, holders), tokens],
  );
}

/** The storage on one transaction: a savepoint per depth, the lab's write under it, rolled back on the way up. */
function savepointStorage(client: Client, scratch: Scratch, tokens?: TokenMap): Storage {
  /** The story's token as this session has it, and back (the same without a map). */
  const own = (token: number): number => tokens?.own.get(token) ?? token;
  const story = (token: number): number => tokens?.story.get(token) ?? token;
  /** Depths whose savepoint is established (a ROLLBACK TO keeps it; it ends those deeper). */
  const established = new Set<number>();
  /** The shallowest depth to roll back to before the next statement. */
  let pendingUndo: number | undefined;

  const flushUndo = (): string => {
    if (pendingUndo === undefined) return '';
    const to = pendingUndo;
    pendingUndo = undefined;
    for (const depth of established) if (depth > to) established.delete(depth);
    return `ROLLBACK TO SAVEPOINT d${to}; `;
  };

  const writeSql = (write: StorageWrite): string => {
    const value = client.escapeLiteral(write.value);
    const actor = client.escapeLiteral(write.holder);
    const labName = client.escapeLiteral(scratch.lab);
    const token = Math.trunc(own(write.token));
    if (scratch.write.table === 'protected_rows') {
      return `SELECT outcome, stored_token FROM fl_fenced_write(${scratch.rowId}, ${value}, ${token}, ${actor}, ${labName}, NULL)`;
    }
    if (scratch.write.table === 'guarded_row') {
      return `SELECT outcome, stored_token FROM fl_your_guard_write(${labName}, ${value}, ${token}, ${actor}, NULL)`;
    }
    if (scratch.write.mode === 'packet') {
      // The relay's delivery of a first attempt (db/delayed-packet-write.ts), the lab's rule in its statement.
      return `SELECT outcome, stored_token FROM fl_delayed_packet_write(${labName}, ${scratch.rowId}, ${value}, ${token}, ${actor}, NULL, 'first')`;
    }
    if (scratch.write.mode === 'catch-up-bypass') {
      // The bypass lab's worker: the fenced write while its lease runs, its catch-up path (no check) once overdue.
      const path = client.escapeLiteral(write.overdue ? 'plain' : 'fenced');
      return `SELECT outcome, stored_token FROM fl_broken_write(${labName}, ${scratch.rowId}, ${path}, ${value}, ${token}, ${actor}, NULL)`;
    }
    // Read-check-write's second half, as db/broken-labs.ts writeReadCheckWrite makes it: given up in
    // the app (checked-stale) when the token was older than the check read, else written with no check.
    const mode = client.escapeLiteral(
      scratch.write.mode !== 'app-check'
        ? scratch.write.mode
        : write.checked !== undefined && write.token < write.checked
          ? 'checked-stale'
          : 'plain',
    );
    return `SELECT outcome, stored_token FROM fl_broken_write(${labName}, ${scratch.rowId}, ${mode}, ${value}, ${token}, ${actor}, NULL)`;
  };

  return {
    async write(depth, write): Promise<WriteOutcome> {
      let sql = flushUndo();
      if (!established.has(depth)) sql += `SAVEPOINT d${depth}; `;
      established.add(depth);
      // A deeper savepoint holds the state before this write: rolling back to it would undo this write too.
      for (const deeper of established) if (deeper > depth) established.delete(deeper);
      sql += writeSql(write);
      try {
        const results = await client.query(sql);
        const last = Array.isArray(results) ? results[results.length - 1] : results;
        const row = last?.rows[0] as { outcome: string; stored_token: string | null } | undefined;
        const bypassing = scratch.write.table === 'unguarded_rows' && scratch.write.mode === 'catch-up-bypass';
        const catchUp = bypassing && write.overdue ? { path: 'catch-up' as const } : {};
        if (row?.outcome === 'accepted') return { outcome: 'accepted', ...catchUp };
        // 'refused': the trainee's statement raised an error (recorded with its words): it wrote nothing.
        if (row?.outcome === 'stale' || row?.outcome === 'refused') {
          return {
            outcome: 'stale',
            ...catchUp,
            ...(row.stored_token === null ? {} : { storedToken: story(Number(row.stored_token)) }),
          };
        }
        throw new FencingError('unknown_row', `the scratch row ${scratch.rowId} is gone (${row?.outcome})`);
      } catch (error) {
        // FL001: the row's trigger refused an older token (a write that bypassed the predicate).
        if (ourSqlstate(error) !== 'FL001') throw error;
        await client.query(`ROLLBACK TO SAVEPOINT d${depth}`);
        const { rows } = await client.query<{ last_token: string }>(
          'SELECT last_token FROM protected_rows WHERE id = $1',
          [scratch.rowId],
        );
        return { outcome: 'refused', storedToken: story(Number(rows[0]?.last_token)) };
      }
    },
    async read() {
      // The lab's own read (fl_read_unguarded_token), after any pending undo: it changes nothing.
      const results = await client.query(
        `${flushUndo()}SELECT fl_read_unguarded_token(${client.escapeLiteral(scratch.lab)}, ${scratch.rowId}) AS token`,
      );
      const last = Array.isArray(results) ? results[results.length - 1] : results;
      return story(Number((last?.rows[0] as { token: string } | undefined)?.token ?? 0));
    },
    async undo(depth) {
      pendingUndo = pendingUndo === undefined ? depth : Math.min(pendingUndo, depth);
    },
  };
}
