import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { listEvents } from '../../db/events';
import { readLabRow } from '../../db/lab-rows';
import { closePool } from '../../db/pool';
import { checkHistory } from '../model/checker/checker';
import { toWire, type WireEvent } from '../model/core/wire';
import { sharedLab } from '../model/lab/lab-instance';
import type { LabId } from '../model/lab/lab-kinds';
import type { RowNow } from '../model/walkthrough/narration';
import { factsFrom, walkthroughFor } from '../model/walkthrough/walkthrough';
import { labTurns } from '../testing/lab-turns';
import { runScenario } from '../testing/run-scenario';

after(closePool);

/** The lab's events and row as the database holds them after a run: what the scenario must have told. */
async function recorded(lab: LabId) {
  const events = (await listEvents({ lab })).map(toWire);
  const stored = await readLabRow(sharedLab(lab));
  const row = stored && { value: stored.value, lastToken: Number(stored.lastToken) };
  return { events, row, checked: checkHistory(events, row) };
}

/** Each step's words as the walkthrough says them for these events and this row. */
function walkthroughWords(lab: LabId, events: readonly WireEvent[], row: RowNow | undefined, ids?: string[]) {
  const facts = factsFrom(events, lab);
  return walkthroughFor(lab)
    .filter((step) => !ids || ids.includes(step.id))
    .map((step) => ({ step: step.id, narration: step.narrate(facts, row) }));
}

const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

/*
 * The tests run side by side, a few at a time (each story is mostly real time: leases running out, a
 * process frozen), and take turns at each shared lab they drive (lib/testing/lab-turns.ts); the ones
 * that drive no lab (usage, no database) run beside any.
 */
const inTurn = labTurns();

describe('npm run scenario -- pause', { concurrency: 3 }, () => {
  test("prints the walkthrough's narration of the recorded events and the checker's verdict, exit 0 when it finds nothing", () =>
    inTurn(['fenced'], async () => {
      const { code, stdout, stderr } = await runScenario(['pause']);
      assert.equal(code, 0, stderr);
      const { events, row, checked } = await recorded('fenced');
      assert.equal(checked.ok, true);
      const told = walkthroughWords('fenced', events, row);
      // The text: each step numbered with its title, then the walkthrough's own words for it.
      const expected = walkthroughFor('fenced').flatMap((step, i) => [
        `${i + 1}. ${step.title}`,
        `   ${told[i]?.narration}`,
      ]);
      const lines = stdout.trim().split('\n');
      assert.deepEqual(lines.slice(0, expected.length), expected);
      assert.match(lines.join('\n'), /A woke up and sent its write "A-\d+" with its old token \d+: rejected as stale/);
      assert.equal(lines[expected.length], `final: protected_rows row 1 value "B-1" last_token ${row?.lastToken}`);
      assert.equal(
        lines[expected.length + 1],
        `safe (the checker): no violation in ${checked.checked.writes} writes and ${checked.checked.grants} grants`,
      );
      assert.equal(lines.length, expected.length + 2, stdout);
    }));

  test('--json prints the same story as JSON lines, each step its walkthrough words', () =>
    inTurn(['fenced'], async () => {
      const { code, stdout, stderr } = await runScenario(['pause', '--json']);
      assert.equal(code, 0, stderr);
      const lines = jsonLines(stdout);
      const { events, row, checked } = await recorded('fenced');
      const ids = walkthroughFor('fenced').map((step) => step.id);
      assert.deepEqual(
        lines.map((line) => line.step),
        [...ids, 'final', 'verdict'],
      );
      assert.deepEqual(
        lines.slice(0, ids.length).map(({ step, narration }) => ({ step, narration })),
        walkthroughWords('fenced', events, row),
      );
      const [final, verdict] = lines.slice(ids.length);
      assert.deepEqual([final.value, final.lastToken], [row?.value, row?.lastToken]);
      assert.deepEqual([verdict.safe, verdict.checked], [checked.ok, checked.checked]);
    }));

  test("the two newer broken labs exit 1 on the checker's violations, in text and in --json", () =>
    inTurn(['same-token-takeover', 'drifting-clock'], async () => {
      const sameToken = await runScenario(['same-token-takeover']);
      assert.equal(sameToken.code, 1, sameToken.stderr);
      const same = await recorded('same-token-takeover');
      assert.equal(same.checked.ok, false);
      for (const { narration } of walkthroughWords('same-token-takeover', same.events, same.row)) {
        assert.ok(sameToken.stdout.includes(`   ${narration}\n`), narration);
      }
      assert.match(
        sameToken.stdout,
        /^checker: token-granted-twice: token (\d+) granted twice: to A at .* and to B at /m,
      );
      assert.ok(
        sameToken.stdout.includes(
          `UNSAFE (A takeover without a new token) (the checker): ${same.checked.violations.length} violations in `,
        ),
        sameToken.stdout,
      );
      const drift = await runScenario(['drifting-clock', '--json']);
      assert.equal(drift.code, 1, drift.stderr);
      const lines = jsonLines(drift.stdout);
      const { events, row, checked } = await recorded('drifting-clock');
      const ids = walkthroughFor('drifting-clock').map((step) => step.id);
      assert.deepEqual(
        lines.filter((l) => l.step !== 'violation').map((l) => l.step),
        [...ids, 'final', 'verdict'],
      );
      assert.deepEqual(
        lines.slice(0, ids.length).map(({ step, narration }) => ({ step, narration })),
        walkthroughWords('drifting-clock', events, row),
      );
      assert.deepEqual(
        lines.filter((l) => l.step === 'violation').map((l) => l.kinds),
        checked.violations.map((v) => v.kinds),
      );
      assert.deepEqual(
        checked.violations.map((v) => v.kinds),
        [['token-went-back', 'superseded-holder', 'write-after-expiry']],
      );
      assert.match(
        lines.find((l) => l.step === 'a-writes-late').narration,
        / ms after its lease ran out by the database's clock: accepted\./,
      );
      assert.equal(lines.at(-1).safe, false);
    }));

  test(
    'pause --lab <lab>: the pause story in that lab (no-fencing: exit 1, the lost update); --lab elsewhere, exit 2',
    {
      timeout: 3 * 120_000, // its wait for the no-fencing lab, behind up to two other stories, included
    },
    () =>
      inTurn(['no-fencing'], async () => {
        const run = await runScenario(['pause', '--lab', 'no-fencing', '--json']);
        assert.equal(run.code, 1, run.stderr);
        const lines = jsonLines(run.stdout);
        const { events, row, checked } = await recorded('no-fencing');
        assert.equal(checked.ok, false);
        const ids = walkthroughFor('no-fencing').map((step) => step.id);
        assert.deepEqual(
          lines.slice(0, ids.length).map(({ step, narration }) => ({ step, narration })),
          walkthroughWords('no-fencing', events, row),
        );
        assert.match(lines.at(-1).text, /^UNSAFE \(No fencing\) \(the checker\): .*lost update/);
        for (const [args, words] of [
          [['pause', '--lab', 'drifting-clock'], /\n--lab for the pause story must be one of fenced, no-fencing, /],
          [['no-fencing', '--lab', 'fenced'], /\n--lab is for chaos and pause only, not no-fencing /],
          [['durability', '--lab', 'fenced'], /\n--lab is for chaos and pause only, not durability /],
          [['pause', '--lab', 'nowhere'], /\n--lab must be one of fenced, /],
        ] as const) {
          const refused = await runScenario([...args]);
          assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
          assert.match(refused.stderr, words);
          assert.equal(refused.stdout, '');
        }
      }),
  );

  test("the drifting clock judged by the database's clock: the steps to B's takeover, and the checker finds nothing (exit 0)", () =>
    inTurn(['drifting-clock'], async () => {
      const asks = await runScenario(['drifting-clock', '--lease-clock', 'database', '--json']);
      assert.equal(asks.code, 0, asks.stderr);
      const lines = jsonLines(asks.stdout);
      const { events, row, checked } = await recorded('drifting-clock');
      const ids = ['setup', 'both-start', 'a-expires', 'b-takes-over'];
      assert.deepEqual(
        lines.slice(0, ids.length).map(({ step, narration }) => ({ step, narration })),
        walkthroughWords('drifting-clock', events, row, ids),
      );
      assert.deepEqual(
        lines.slice(ids.length).map((l) => l.step),
        ['final', 'verdict'],
      );
      assert.equal(checked.ok, true);
      assert.equal(lines.at(-1).safe, true);
    }));

  test("the delayed packet, told in the walkthrough's words: fenced exits 0 with the held write rejected, unfenced exits 1 on the checker's lost update (--json)", () =>
    inTurn(['delayed-packet', 'delayed-packet-unfenced'], async () => {
      const fenced = await runScenario(['delayed-packet']);
      assert.equal(fenced.code, 0, fenced.stderr);
      assert.match(fenced.stdout, /^3\. The network holds A's write; A's lease runs out$/m);
      assert.match(
        fenced.stdout,
        /PostgreSQL received A's write \d+ ms after A sent it, \d+ ms after A's lease ran out by the database's clock: "A-\d+" with token \d+, rejected as stale/,
      );
      assert.match(fenced.stdout, /^safe \(the checker\): no violation in \d+ writes and \d+ grants$/m);
      const unfenced = await runScenario(['delayed-packet-unfenced', '--json']);
      assert.equal(unfenced.code, 1, unfenced.stderr);
      const lines = jsonLines(unfenced.stdout);
      const { events, row, checked } = await recorded('delayed-packet-unfenced');
      const ids = walkthroughFor('delayed-packet-unfenced').map((step) => step.id);
      assert.deepEqual(
        lines.filter((l) => l.step !== 'violation').map((l) => l.step),
        [...ids, 'final', 'verdict'],
      );
      // Each step's words are the walkthrough's, read from the events the run recorded.
      assert.deepEqual(
        lines.slice(0, ids.length).map(({ step, narration }) => ({ step, narration })),
        walkthroughWords('delayed-packet-unfenced', events, row),
      );
      assert.deepEqual(
        lines.filter((l) => l.step === 'violation').map((l) => l.kinds),
        checked.violations.map((v) => v.kinds),
      );
      assert.deepEqual(
        checked.violations.map((v) => v.kinds),
        [['token-went-back', 'superseded-holder', 'write-after-expiry']],
      );
      assert.match(
        lines.find((l) => l.step === 'held-write-arrives').narration,
        /B's newer value was overwritten, a lost update/,
      );
      assert.match(
        lines.at(-1).text,
        /^UNSAFE \(A delayed packet, unfenced\) \(the checker\): 1 violation in \d+ writes and \d+ grants: lost update: /,
      );
      assert.equal(lines.at(-1).safe, false);
    }));

  test("the delayed packet with --retry, told in the walkthrough's words: fenced, the retry and the held write are both rejected; unfenced, one write lands twice (--json)", () =>
    inTurn(['delayed-packet', 'delayed-packet-unfenced'], async () => {
      const fenced = await runScenario(['delayed-packet', '--retry']);
      assert.equal(fenced.code, 0, fenced.stderr);
      assert.match(
        fenced.stdout,
        /Before it, A's client had given up waiting after 4 s and sent the same write again, with the same token, on a new connection: "A-2" with token \d+, rejected as stale, because the row held token \d+\./,
      );
      assert.match(
        fenced.stdout,
        /PostgreSQL received A's write \d+ ms after A sent it, \d+ ms after A's lease ran out by the database's clock: "A-2" with token \d+, rejected as stale/,
      );
      assert.match(fenced.stdout, /^safe \(the checker\): no violation in \d+ writes and \d+ grants$/m);
      const unfenced = await runScenario(['delayed-packet-unfenced', '--retry', '--json']);
      assert.equal(unfenced.code, 1, unfenced.stderr);
      const lines = jsonLines(unfenced.stdout);
      const { events, row, checked } = await recorded('delayed-packet-unfenced');
      const ids = walkthroughFor('delayed-packet-unfenced').map((step) => step.id);
      assert.deepEqual(
        lines.filter((l) => l.step !== 'violation').map((l) => l.step),
        [...ids, 'final', 'verdict'],
      );
      // Each step's words are the walkthrough's, read from the events the run recorded: the retry's too.
      assert.deepEqual(
        lines.slice(0, ids.length).map(({ step, narration }) => ({ step, narration })),
        walkthroughWords('delayed-packet-unfenced', events, row),
      );
      assert.match(
        lines.find((l) => l.step === 'held-write-arrives').narration,
        /on a new connection: "A-2" with token \d+, accepted\. The row went from "B-1" \(token \d+\) to "A-2" \(token \d+\): B's newer value was overwritten, a lost update\. Then the row went from "A-2" \(token \d+\) to "A-2" \(token \d+\): the same write applied twice\./,
      );
      // The verdict is the checker's: the retry over B's value, and the held write after it.
      assert.deepEqual(
        lines.filter((l) => l.step === 'violation').map((l) => l.kinds),
        checked.violations.map((v) => v.kinds),
      );
      assert.ok(
        checked.violations.some((v) => v.kinds.includes('write-after-expiry')),
        'a write received after its lease ran out',
      );
      assert.match(
        lines.at(-1).text,
        /^UNSAFE \(A delayed packet, unfenced\) \(the checker\): \d+ violations? in \d+ writes and \d+ grants: lost update: /,
      );
      assert.equal(lines.at(-1).safe, false);
      const misused = await runScenario(['pause', '--retry']);
      assert.equal(misused.code, 2);
      assert.match(misused.stderr, /--retry is for the delayed-packet scenarios only/);
    }));

  test('no database reachable: a clear message and a non-zero exit', async () => {
    const { code, stdout, stderr } = await runScenario(['pause'], {
      ...process.env,
      DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/nothing',
    });
    assert.equal(code, 3);
    assert.equal(stdout, '');
    assert.match(stderr, /^no database reachable \(connect ECONNREFUSED 127\.0\.0\.1:1\)/);
    assert.doesNotMatch(stderr, /secret/, 'the password is not printed');
  });

  test('an unknown scenario or option: usage and exit 2', async () => {
    const unknown = await runScenario(['pasue']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^usage: npm run scenario -- <pause\|no-fencing\|[a-z|-]+> \[--json\]\n/);
    assert.match(unknown.stderr, /\nunknown scenario "pasue"\n?$/);
    const badFlag = await runScenario(['pause', '--jsn']);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /\nunknown option --jsn\n?$/);
    const clockElsewhere = await runScenario(['pause', '--lease-clock', 'database']);
    assert.equal(clockElsewhere.code, 2);
    assert.match(clockElsewhere.stderr, /\n--lease-clock is for the drifting-clock scenarios only\n?$/);
    const badClock = await runScenario(['drifting-clock', '--lease-clock', 'ntp']);
    assert.equal(badClock.code, 2);
    assert.match(badClock.stderr, /\n--lease-clock must be one of own, database\n?$/);
  });

  test('--help: the usage on stdout, exit 0, nothing run', async () => {
    for (const args of [['--help'], ['pause', '--help'], ['-h']]) {
      const help = await runScenario(args);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /^usage: npm run scenario -- <pause\|/);
      assert.equal(help.stderr, '');
    }
  });
});
