import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { UsageError } from '../model/core/errors';
import { runCommandLine } from '../testing/command-line';
import { parseExploreArgs } from './args';

/** One run of `npm run explore` on the lane's database (DATABASE_URL): its exit code and what it printed. */
async function explore(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runCommandLine('lib/explore/main.ts', args);
  return { status: code, stdout, stderr };
}

test('the command line is checked with zod: bounds 1 to 3, a lab the explorer runs', () => {
  assert.deepEqual(parseExploreArgs(['--lab', 'fenced']), {
    lab: 'fenced',
    holders: 2,
    writes: 3,
    json: false,
    renew: false,
    sync: false,
  });
  assert.equal((parseExploreArgs(['--lab', 'fenced', '--renew']) as { renew: boolean }).renew, true);
  assert.deepEqual(
    parseExploreArgs(['--lab', 'no-fencing', '--holders', '3', '--writes', '1', '--depth', '6', '--json']),
    {
      lab: 'no-fencing',
      holders: 3,
      writes: 1,
      depth: 6,
      json: true,
      renew: false,
      sync: false,
    },
  );
  assert.equal((parseExploreArgs(['--lab', 'failover', '--sync']) as { sync: boolean }).sync, true);
  assert.equal(parseExploreArgs(['--help']), 'help');
  assert.deepEqual(parseExploreArgs(['--guard', 'mine.sql']), {
    lab: 'your-guard',
    guard: 'mine.sql',
    holders: 2,
    writes: 3,
    json: false,
    renew: false,
    sync: false,
  });
  for (const [argv, said] of [
    [[], /--lab \(or --guard\) is required/],
    [['--lab', 'nope'], /--lab must be one of fenced, no-fencing/],
    [['--lab', 'fenced', '--holders', '4'], /--holders must be at most 3/],
    [['--lab', 'fenced', '--writes', '0'], /--writes must be at least 1/],
    [['--lab', 'fenced', '--writes', ''], /--writes must be a whole number/],
    [['--lab', 'fenced', '--depth', '1.5'], /--depth must be a whole number/],
    [['--lab', 'fenced', '--guard', 'x.sql'], /--guard explores your statement in a your-guard lab: leave --lab out/],
    [['--lab', 'your-guard'], /give it with --guard <file.sql>/],
    [['--guard', ''], /--guard names a file/],
    [['--lab', 'fenced', '--sync'], /--sync is the failover lab's: its pair's replication/],
    [['--lab', 'failover', '--renew'], /the failover lab's holders do not renew their leases/],
  ] as const) {
    assert.throws(
      () => parseExploreArgs([...argv]),
      (error: unknown) => error instanceof UsageError && said.test(error.message),
    );
  }
});

describe('npm run explore', { timeout: 120_000 }, () => {
  test('--help exits 0 with the usage', async () => {
    const run = await explore(['--help']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^usage: npm run explore -- --lab </);
  });

  test('bad usage exits 2 and says why', async () => {
    const bad = await explore(['--lab', 'fenced', '--holders', '9']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--holders must be at most 3/);
    const sync = await explore(['--lab', 'no-fencing', '--sync']);
    assert.equal(sync.status, 2);
    assert.match(sync.stderr, /--sync is the failover lab's/);
  });

  test('the fenced lab holds: exit 0, with its counts and bounds', async () => {
    const run = await explore(['--lab', 'fenced', '--holders', '2', '--writes', '2']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stdout,
      /^Fenced: 39 states, 30 interleavings of 2 holders × 2 writes, explored in [\d.]+ s: no interleaving loses a write\./,
    );
    assert.match(run.stdout, /nothing committed/);
  });

  test('no fencing breaks: exit 1, and the shortest counterexample step by step', async () => {
    const run = await explore(['--lab', 'no-fencing', '--holders', '2', '--writes', '2']);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /^No fencing: breaks in 16 of 28 interleavings of 2 holders × 2 writes/);
    assert.match(
      run.stdout,
      /The shortest interleaving that breaks it, 5 steps:\n {2}1\. A asks for the lease and is granted token 1\n {2}2\. A's lease \(token 1\) runs out\n {2}3\. B asks for the lease and is granted token 2\n {2}4\. B's write of "B1" with token 2 reaches the row: accepted\n {2}5\. A's write of "A1" with token 1 reaches the row: accepted\n/,
    );
    const json = await explore(['--lab', 'no-fencing', '--holders', '2', '--writes', '2', '--json']);
    assert.equal(json.status, 1, json.stderr);
    const parsed = JSON.parse(json.stdout) as { holds: boolean; shortest: { steps: unknown[]; events: unknown[] } };
    assert.equal(parsed.holds, false);
    assert.equal(parsed.shortest.steps.length, 5);
    assert.equal(parsed.shortest.events.length, 5);
  });

  test('--renew: careful holders renew before each write, and no fencing still breaks in fewer interleavings', async () => {
    const run = await explore(['--lab', 'no-fencing', '--holders', '2', '--writes', '2', '--renew']);
    assert.equal(run.status, 1, run.stderr);
    assert.match(
      run.stdout,
      /^No fencing: breaks in 16 of 58 interleavings of 2 holders × 2 writes, each renewing its lease before every later write and giving it back after its last/,
    );
  });

  test('--guard: your own statement, explored alone; a backdoor token is found, a bad file or statement is bad usage', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fencing-lab-explore-'));
    const guard = async (name: string, text: string) => {
      await writeFile(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';
    const right = await explore(['--guard', await guard('right.sql', `${SET} AND last_token <= $2`)]);
    assert.equal(right.status, 0, right.stderr);
    assert.match(
      right.stdout,
      /^Your guard \(.*right\.sql\): [\d,]+ states, 112 interleavings of 2 holders × 3 writes/,
    );
    const backdoor = await explore([
      '--guard',
      await guard('backdoor.sql', `${SET} AND (last_token <= $2 OR $2 = 42)`),
      '--writes',
      '2',
    ]);
    assert.equal(backdoor.status, 1, backdoor.stderr);
    assert.match(backdoor.stdout, /Also explored: grants from 41 and 42/);
    assert.match(backdoor.stdout, /5\. A's write of "A1" with token 42 reaches the row: accepted/);
    const missing = await explore(['--guard', path.join(dir, 'none.sql')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /none\.sql: cannot read it \(ENOENT\)/);
    const refused = await explore(['--guard', await guard('delete.sql', 'DELETE FROM guarded_row')]);
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /is not a guard the lab takes: a guard is an UPDATE of guarded_row, not a DELETE/);
  });
});

// Its own time: two explorations of the pair, each starting the command and its database.
describe('npm run explore -- --lab failover', { timeout: 120_000 }, () => {
  test('failover: asynchronous breaks (exit 1, an acknowledged write lost), synchronous holds (exit 0)', async () => {
    const async = await explore(['--lab', 'failover', '--holders', '2', '--writes', '2']);
    assert.equal(async.status, 1, async.stderr);
    assert.match(
      async.stdout,
      /^Failover \(asynchronous replication\): breaks in 1,236 of 4,734 interleavings of 2 holders × 2 writes \(712 states/,
    );
    assert.match(
      async.stdout,
      /The shortest interleaving that breaks it, 3 steps:\n {2}1\. A asks for the lease and is granted token 1 on the primary\n {2}2\. A's write of "A1" with token 1 reaches the row on the primary: accepted\n {2}3\. The primary dies; the standby, 1 grant and 1 write behind, is promoted: its row holds "initial" with token 0, it holds no lease, and its next token is 1\nThe checker: acknowledged write lost: A's write "A1" \(token 1\)/,
    );
    const sync = await explore(['--lab', 'failover', '--sync', '--holders', '2', '--writes', '2', '--json']);
    assert.equal(sync.status, 0, sync.stderr);
    const parsed = JSON.parse(sync.stdout) as {
      holds: boolean;
      replication: string;
      counts: { interleavings: number };
    };
    assert.deepEqual([parsed.holds, parsed.replication, parsed.counts.interleavings], [true, 'sync', 240]);
  });
});
