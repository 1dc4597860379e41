import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runScenario } from '../testing/run-scenario';

/*
 * `npm run scenario -- failover` as a user runs it: a real primary and standby of its own, under the
 * app's data directory (here a temporary one), gone when the command ends.
 */

let dataDir = '';
before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-failover-cli-'));
});
after(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const runFailover = (args: string[]) => runScenario(args, { ...process.env, FENCING_LAB_DATA_DIR: dataDir });

describe('npm run scenario -- failover', () => {
  test('asynchronous replication: exit 1, the lost write and grant and the stale write named; the pair is gone', async () => {
    const { code, stdout, stderr } = await runFailover(['failover']);
    assert.equal(code, 1, stderr);
    const lines = stdout.trim().split('\n');
    // Told in the walkthrough's words, read from the recorded events, as the lab's page tells it.
    assert.match(lines.join('\n'), /^8\. The standby is promoted$/m);
    assert.match(
      lines.join('\n'),
      /The promoted standby’s row holds "A-1" with token (\d+); its lease is A’s \(token \1\)\./,
    );
    assert.match(
      lines.join('\n'),
      /^11\. The verdict\n {3}The checker’s verdict: UNSAFE: 2 violations in \d+ writes and \d+ grants\./m,
    );
    assert.deepEqual(
      lines.filter((line) => line.startsWith('checker: ')).map((line) => line.split(':')[1]?.trim()),
      ['acknowledged-write-lost, stale-write-accepted', 'acknowledged-write-lost'],
    );
    assert.match(
      lines.at(-1) ?? '',
      /^UNSAFE \(failover, asynchronous replication\) \(the checker\): 2 violations in \d+ writes and \d+ grants$/,
    );
    assert.deepEqual(await readdir(path.join(dataDir, 'failover')), [], 'the pair’s data directories are removed');
  });

  test('--sync --grants-past-cut 40 --json: exit 0, B’s commit waited, A rejected, JSON lines', async () => {
    const { code, stdout, stderr } = await runFailover(['failover', '--sync', '--grants-past-cut', '40', '--json']);
    assert.equal(code, 0, stderr);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.ok(lines.some((line) => line.step === 'grant_waiting' && line.waitedMs >= 1000));
    const lateA = lines.filter((line) => line.step === 'write' && line.holder === 'A').at(-1);
    assert.equal(lateA.accepted, false);
    assert.equal(lines.at(-1).safe, true);
  });

  test('asynchronous, 40 grants past the cut: a token handed out twice, named', async () => {
    const { code, stdout, stderr } = await runFailover(['failover', '--grants-past-cut', '40']);
    assert.equal(code, 1, stderr);
    assert.match(stdout, /It had handed out tokens up to (\d+); the standby’s copy of the sequence covers up to \d+\./);
    assert.match(stdout, /Another client had been granted token (\d+) by the old primary: one token granted twice\./);
    assert.match(stdout, /checker: token-granted-twice: token (\d+) granted twice: to others at [\d:.]+ and to C at/);
  });

  test('a bad option: exit 2 with the reason, nothing started', async () => {
    const { code, stderr } = await runFailover(['failover', '--grants-past-cut', '500']);
    assert.equal(code, 2);
    assert.match(stderr, /--grants-past-cut must be a whole number from 0 to 200/);
  });
});
