import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { exploreGuardOnDatabase } from '../../db/explore';
import { closeLab, createPrivateLab, type LabRecord } from '../../db/labs';
import { closePool, getPool } from '../../db/pool';
import { dropGuard, installGuard } from '../../db/your-guard';
import { FENCED_PREDICATE, memoryStorage, NO_CHECK, type WritePredicate } from '../model/explore/memory-storage';
import { explore } from '../model/explore/search';
import { exploreSettings, type GuardConstants } from '../model/guard/guard-probes';
import { parseGuard } from '../server/guard-parser';
import { INITIAL_ROW_VALUE } from '../supervisor/lab-reset';

/*
 * A trainee's guard explored (issue 35 part 5): every interleaving of 2 holders × 3 writes, each write
 * the trainee's own statement in their lab (fl_your_guard_write), rolled back. The right guard holds,
 * no check breaks in the known five steps, and the counts are those of a storage in memory with the
 * same rule: the guard's real SQL decided every write. Nothing of the lab changes.
 */

let lab: LabRecord;
before(async () => {
  lab = await createPrivateLab({
    kind: 'your-guard',
    ownerHash: randomBytes(32).toString('hex'),
    openedFrom: `guard-explore-${randomBytes(4).toString('hex')}`,
    initialValue: INITIAL_ROW_VALUE,
    opensPerAddress: 1,
    opensWindowMs: 1,
  });
});
after(async () => {
  await dropGuard(lab.id);
  await closeLab(lab.id);
  await closePool();
});

const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';
const BOUNDS = { holders: 2, writes: 3 };

async function install(text: string): Promise<GuardConstants> {
  const parsed = await parseGuard(text);
  assert.ok(parsed.ok);
  await installGuard(lab.id, parsed.statement);
  return parsed.constants;
}

const inMemory = (predicate: WritePredicate) =>
  explore({
    bounds: BOUNDS,
    start: { rule: { tokens: [9, 10], writeWith: 'lease-token' }, row: { value: 'initial', token: 0 } },
    storage: memoryStorage(predicate, { value: 'initial', token: 0 }),
  });

/** What a reader of the lab sees: its events and its row. */
async function labFacts() {
  const { rows } = await getPool().query(
    `SELECT (SELECT count(*) FROM events WHERE lab = $1) AS events,
            (SELECT value || '/' || last_token FROM unguarded_rows WHERE lab = $1) AS row`,
    [lab.id],
  );
  return rows[0];
}

describe("a trainee's guard, every interleaving", { timeout: 120_000 }, () => {
  test('the right guard holds in every interleaving of 2 holders × 3 writes, counted as in memory', async () => {
    await install(`${SET} AND last_token <= $2`);
    const before = await labFacts();
    const explored = await exploreGuardOnDatabase({ lab: lab.id, bounds: BOUNDS });
    assert.equal(explored.result.counts.broken, 0);
    assert.deepEqual(explored.result.counts, (await inMemory(FENCED_PREDICATE)).counts);
    assert.deepEqual(explored.reserved, [9, 10], 'its grants cross the digit boundary');
    assert.deepEqual(await labFacts(), before, 'nothing of the lab changed');
  });

  test('no check breaks, the shortest way five steps, with its events as a history of the lab', async () => {
    await install(SET);
    const explored = await exploreGuardOnDatabase({ lab: lab.id, bounds: BOUNDS });
    assert.deepEqual(explored.result.counts, (await inMemory(NO_CHECK)).counts);
    const shortest = explored.result.shortest;
    assert.equal(shortest?.steps.length, 5);
    assert.ok(shortest?.events.every((event) => event.lab === lab.id));
    assert.deepEqual(
      shortest?.events.slice(-2).map((e) => [e.actor, e.kind, e.token]),
      [
        ['B', 'write_accepted', 10],
        ['A', 'write_accepted', 9],
      ],
    );
  });

  // Found by the explorer alone (issue 35 part 5): no story, no chaos, only the statement's constants.
  const alone = async (text: string) => {
    const constants = await install(text);
    return exploreGuardOnDatabase({ lab: lab.id, bounds: BOUNDS, settings: exploreSettings(constants, 2) });
  };
  const staleAccepted = (explored: Awaited<ReturnType<typeof alone>>) =>
    explored.result.shortest?.events.filter((e) => e.kind === 'write_accepted').at(-1);

  test('a backdoor token is found: the grants from the number the statement names', async () => {
    const text = `${SET} AND (last_token <= $2 OR $2 = 42)`;
    await install(text);
    const story = await exploreGuardOnDatabase({ lab: lab.id, bounds: BOUNDS });
    assert.equal(story.result.counts.broken, 0, 'the grants from 9 alone never present 42');
    const before = await labFacts();
    const explored = await alone(text);
    assert.ok(explored.result.shortest, 'it breaks');
    assert.deepEqual(explored.settings.at(-1), { firstToken: 42 });
    assert.equal(staleAccepted(explored)?.token, 42, 'the stale write with 42, over a newer token, accepted');
    assert.deepEqual(await labFacts(), before, 'nothing of the lab changed');
  });

  test("a backdoor value is found: every write carries the statement's string", async () => {
    const explored = await alone(`${SET} AND (last_token <= $2 OR $1 = 'let-me-in')`);
    assert.ok(explored.result.shortest, 'it breaks');
    assert.deepEqual(explored.settings.at(-1), { firstToken: 9, value: 'let-me-in' });
    assert.equal(staleAccepted(explored)?.detail.value, 'let-me-in');
  });

  test('a comparison as text and an off-by-one are found from the grants from 9 alone', async () => {
    for (const guard of [`${SET} AND last_token::text <= $2::text`, `${SET} AND last_token <= $2 + 1`]) {
      const explored = await alone(guard);
      assert.ok(explored.result.shortest, `${guard} breaks`);
      assert.equal(explored.settings.length, 1, `${guard}: at the first setting`);
    }
  });

  test('a right guard with a constant holds in every setting', async () => {
    const explored = await alone(`${SET} AND last_token <= $2 AND $2 >= 1`);
    assert.deepEqual(
      explored.settings.map((s) => s.firstToken),
      [9, 1, 2],
      "the story's grants from 9, then from 1 and its neighbour (0 is no token)",
    );
    assert.equal(explored.result.shortest, undefined);
    assert.equal(explored.result.counts.broken, 0);
    const one = (await inMemory(FENCED_PREDICATE)).counts.interleavings;
    assert.equal(explored.result.counts.interleavings, 3 * one, 'the counts of all three explorations');
  });
});
