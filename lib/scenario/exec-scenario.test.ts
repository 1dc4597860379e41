import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { listEvents } from '../../db/events';
import { readLabRow } from '../../db/lab-rows';
import { closePool } from '../../db/pool';
import { toWire, type WireEvent } from '../model/core/wire';
import { sharedLab } from '../model/lab/lab-instance';
import type { LabId, WorkerLabId } from '../model/lab/lab-kinds';
import { falseClaims } from '../model/walkthrough/narration-oracle';
import { factsFrom, walkthroughFor } from '../model/walkthrough/walkthrough';
import { labTurns } from '../testing/lab-turns';
import { pythonWithPsycopg } from '../testing/python';
import { runScenario } from '../testing/run-scenario';

/*
 * A person's program as A or B of the pause story (issue 36, item 5): `npm run scenario -- pause
 * --exec-a "<command>"` runs it through `npm run worker -- --exec`, freezes it for real (SIGSTOP) in
 * its critical window, and exits 0 when the checker's verdict is the one the lab should give: the
 * reference clients in bash and in Python, each in the fenced lab (its late write refused, the row keeps
 * B's value) and in the no-fencing lab (its late write accepted: the checker names the lost update).
 */

after(closePool);

const BASH = 'bash clients/psql/worker.sh';
const PYTHON = `${pythonWithPsycopg() ?? 'python3'} clients/python/worker.py`;
/** The correct client in about twenty lines that docs/protocol.md shows (it runs only under the runner). */
const MINIMAL = `${pythonWithPsycopg() ?? 'python3'} clients/python/minimal.py`;

const eventsOf = async (lab: LabId) => (await listEvents({ lab })).map(toWire);
const laterThan = (events: WireEvent[], id: number) => events.filter((e) => e.id > id);

/** The story's freeze of `actor`, its thaw, and its first write after the thaw, as recorded. */
function lateWrite(events: WireEvent[], actor: string) {
  const froze = events.find((e) => e.actor === actor && e.kind === 'pause_started');
  assert.ok(froze, `${actor} froze`);
  assert.equal(froze.detail.trigger, 'critical-window');
  const woke = laterThan(events, froze.id).find((e) => e.actor === actor && e.kind === 'pause_ended');
  assert.ok(woke, `${actor} woke`);
  const write = laterThan(events, woke.id).find(
    (e) => e.actor === actor && (e.kind === 'write_accepted' || e.kind === 'write_rejected'),
  );
  assert.ok(write, `${actor}'s write after the thaw`);
  // Nothing of the frozen program landed while it was frozen.
  // (Its lease's expiry is recorded under its name by the server, which is not the program.)
  const during = events.filter(
    (e) => e.id > froze.id && e.id < woke.id && e.actor === actor && e.kind !== 'lease_expired',
  );
  assert.deepEqual(during, []);
  return { froze, write };
}

/**
 * The narration oracle on a run with a person's program in it: the lab's walkthrough, read as of the
 * run's end, says nothing false of the events and the row (every step the run reached, the last one
 * included), as on a run of our own workers (walkthrough-narration.test.ts).
 */
async function assertNarrationHolds(kind: WorkerLabId): Promise<void> {
  const events = await eventsOf(kind);
  const stored = await readLabRow(sharedLab(kind));
  const row = stored && { value: stored.value, lastToken: Number(stored.lastToken) };
  const facts = factsFrom(events, kind);
  const steps = walkthroughFor(kind);
  assert.ok(steps.at(-1)?.done(facts), "the run reached the walkthrough's last step");
  for (const step of steps) {
    if (!step.done(facts)) continue;
    const text = step.narrate(facts, row);
    assert.deepEqual(falseClaims(text, events, row), [], `step "${step.id}": ${text}`);
  }
}

/*
 * The tests run side by side, a few at a time (each story is mostly real time: a program frozen past
 * its lease), and take turns at each shared lab they drive (lib/testing/lab-turns.ts): a fenced lab's
 * story beside a no-fencing lab's.
 */
const inTurn = labTurns();
/**
 * A test's deadline counts from its start, its wait for the lab included: three at a time, a test may
 * wait for two others' stories at the same lab (each under 120 s), then tell its own.
 */
const TURN_TIMEOUT_MS = 3 * 120_000;

describe('npm run scenario -- <pause story> --exec-a / --exec-b', { concurrency: 3 }, () => {
  test(
    'fenced, the bash client as A: frozen in its critical window, its late write refused, exit 0',
    {
      timeout: TURN_TIMEOUT_MS,
    },
    () =>
      inTurn(['fenced'], async () => {
        const { code, stdout, stderr } = await runScenario(['pause', '--exec-a', BASH]);
        assert.equal(code, 0, `${stdout}\n${stderr}`);
        assert.match(stdout, /A, a program of your own \("bash worker\.sh"\), said it was about to write/);
        assert.match(stdout, /A woke up and sent its write "A-\d+" with its old token \d+: rejected as stale/);
        assert.match(stdout, /^As the fenced lab should: no write lost \(the checker found no violation\)\.$/m);
        // The program's own words, on stderr under its name.
        assert.match(stderr, /^A\| I hold token \d+ until /m);
        const events = await eventsOf('fenced');
        assert.equal(events.find((e) => e.actor === 'A' && e.kind === 'worker_started')?.detail.exec, 'bash worker.sh');
        const { froze, write } = lateWrite(events, 'A');
        assert.equal(write.kind, 'write_rejected');
        assert.equal(write.token, froze.token, 'the late write carries the token it froze with');
        assert.equal((await readLabRow(sharedLab('fenced')))?.value, 'B-1');
        await assertNarrationHolds('fenced');
      }),
  );

  test(
    "no-fencing, the Python client as A: its late write lands over B's, the lost update, exit 0",
    {
      timeout: TURN_TIMEOUT_MS,
    },
    () =>
      inTurn(['no-fencing'], async () => {
        const { code, stdout, stderr } = await runScenario(['no-fencing', '--exec-a', PYTHON]);
        assert.equal(code, 0, `${stdout}\n${stderr}`);
        assert.match(stdout, /lost update/);
        assert.match(
          stdout,
          /^As the no-fencing lab should: A's late write lands over B's \(the checker found a violation\)\.$/m,
        );
        const { froze, write } = lateWrite(await eventsOf('no-fencing'), 'A');
        assert.equal(write.kind, 'write_accepted');
        assert.equal(write.token, froze.token);
        const row = await readLabRow(sharedLab('no-fencing'));
        assert.equal(row?.value, write.detail.value, "the row holds A's late value");
        await assertNarrationHolds('no-fencing');
      }),
  );

  test(
    "no-fencing, the bash client as A (pause --lab no-fencing): its late write lands over B's, the lost update, exit 0",
    {
      timeout: TURN_TIMEOUT_MS,
    },
    () =>
      inTurn(['no-fencing'], async () => {
        const { code, stdout, stderr } = await runScenario(['pause', '--lab', 'no-fencing', '--exec-a', BASH]);
        assert.equal(code, 0, `${stdout}\n${stderr}`);
        assert.match(stdout, /A, a program of your own \("bash worker\.sh"\), said it was about to write/);
        // The checker names the lost update: B's value overwritten by A with its old token.
        assert.match(
          stdout,
          /^UNSAFE \(No fencing\) \(the checker\): .*lost update: B's value "B-\d+" \(token \d+\) overwritten by A/m,
        );
        assert.match(
          stdout,
          /^As the no-fencing lab should: A's late write lands over B's \(the checker found a violation\)\.$/m,
        );
        assert.match(stderr, /^A\| I hold token \d+ until /m);
        const events = await eventsOf('no-fencing');
        assert.equal(events.find((e) => e.actor === 'A' && e.kind === 'worker_started')?.detail.exec, 'bash worker.sh');
        const { froze, write } = lateWrite(events, 'A');
        assert.equal(write.kind, 'write_accepted');
        assert.equal(write.token, froze.token, 'the late write carries the token it froze with');
        const row = await readLabRow(sharedLab('no-fencing'));
        assert.equal(row?.value, write.detail.value, "the row holds A's late value");
        await assertNarrationHolds('no-fencing');
      }),
  );

  test(
    "fenced, the Python client as B: it takes over and writes, A's late write is refused, exit 0",
    {
      timeout: TURN_TIMEOUT_MS,
    },
    () =>
      inTurn(['fenced'], async () => {
        const { code, stdout, stderr } = await runScenario(['pause', '--exec-b', PYTHON]);
        assert.equal(code, 0, `${stdout}\n${stderr}`);
        assert.match(stderr, /^B\| wrote B-1 with token \d+$/m);
        const events = await eventsOf('fenced');
        const { write } = lateWrite(events, 'A');
        assert.equal(write.kind, 'write_rejected');
        assert.match(String((await readLabRow(sharedLab('fenced')))?.value), /^B-\d+$/);
        await assertNarrationHolds('fenced');
      }),
  );

  test(
    "fenced, the twenty-line Python client as A: frozen in its critical window, its late write refused, the row keeps B's value, exit 0",
    {
      timeout: TURN_TIMEOUT_MS,
    },
    () =>
      inTurn(['fenced'], async () => {
        const { code, stdout, stderr } = await runScenario(['pause', '--exec-a', MINIMAL]);
        assert.equal(code, 0, `${stdout}\n${stderr}`);
        assert.match(stdout, /A, a program of your own \("python3 minimal\.py"\), said it was about to write/);
        assert.match(stdout, /A woke up and sent its write "A-\d+" with its old token \d+: rejected as stale/);
        assert.match(stdout, /^As the fenced lab should: no write lost \(the checker found no violation\)\.$/m);
        assert.match(stdout, /^your client \(A\): nothing wrong the lab can see/m);
        // What it believes, on stderr under its name: the token it holds, and the refusal as the lease lost.
        assert.match(stderr, /^A\| I hold token \d+$/m);
        assert.match(stderr, /^A\| my write with token \d+ was refused: I lost the lease$/m);
        const events = await eventsOf('fenced');
        const { froze, write } = lateWrite(events, 'A');
        assert.equal(write.kind, 'write_rejected');
        assert.equal(write.token, froze.token, 'the late write carries the token it froze with');
        const lost = laterThan(events, write.id).find((e) => e.actor === 'A' && e.kind === 'lease_lost');
        assert.equal(lost?.token, write.token, 'it records the refusal as its lease lost');
        const bWrites = events.filter((e) => e.actor === 'B' && e.kind === 'write_accepted');
        assert.equal(
          (await readLabRow(sharedLab('fenced')))?.value,
          bWrites.at(-1)?.detail.value,
          "the row keeps B's value",
        );
        await assertNarrationHolds('fenced');
      }),
  );

  test(
    "fenced, the twenty-line client under the Python runner (--runner) as A: frozen in its critical window, its late write refused, the row keeps B's value, exit 0",
    {
      timeout: TURN_TIMEOUT_MS,
    },
    () =>
      inTurn(['fenced'], async () => {
        const runner = `${pythonWithPsycopg() ?? 'python3'} clients/python/runner.py`;
        const { code, stdout, stderr } = await runScenario(['pause', '--exec-a', MINIMAL, '--runner', runner]);
        assert.equal(code, 0, `${stdout}\n${stderr}`);
        assert.match(stdout, /A woke up and sent its write "A-\d+" with its old token \d+: rejected as stale/);
        assert.match(stdout, /^As the fenced lab should: no write lost \(the checker found no violation\)\.$/m);
        // The Python runner's own line, then the program's words, on stderr under its name.
        assert.match(stderr, /^A\| A joined fenced and runs ".*minimal\.py" as its lane$/m);
        assert.match(stderr, /^A\| my write with token \d+ was refused: I lost the lease$/m);
        const events = await eventsOf('fenced');
        const { froze, write } = lateWrite(events, 'A');
        assert.equal(write.kind, 'write_rejected');
        assert.equal(write.token, froze.token, 'the late write carries the token it froze with');
        const bWrites = events.filter((e) => e.actor === 'B' && e.kind === 'write_accepted');
        assert.equal(
          (await readLabRow(sharedLab('fenced')))?.value,
          bWrites.at(-1)?.detail.value,
          "the row keeps B's value",
        );
        await assertNarrationHolds('fenced');
      }),
  );

  test(
    "no-fencing, the twenty-line Python client as A: the same late write lands over B's, the lost update, exit 0",
    {
      timeout: TURN_TIMEOUT_MS,
    },
    () =>
      inTurn(['no-fencing'], async () => {
        const { code, stdout, stderr } = await runScenario(['pause', '--lab', 'no-fencing', '--exec-a', MINIMAL]);
        assert.equal(code, 0, `${stdout}\n${stderr}`);
        assert.match(
          stdout,
          /^UNSAFE \(No fencing\) \(the checker\): .*lost update: B's value "B-\d+" \(token \d+\) overwritten by A/m,
        );
        const { froze, write } = lateWrite(await eventsOf('no-fencing'), 'A');
        assert.equal(write.kind, 'write_accepted');
        assert.equal(write.token, froze.token);
        assert.equal(
          (await readLabRow(sharedLab('no-fencing')))?.value,
          write.detail.value,
          "the row holds A's late value",
        );
      }),
  );

  test('the reference client did nothing wrong the lab can see', { timeout: TURN_TIMEOUT_MS }, () =>
    inTurn(['fenced'], async () => {
      // (Told by each run above too; here on its own line, for the Python client as A in the fenced lab.)
      const { code, stdout, stderr } = await runScenario(['pause', '--exec-a', PYTHON]);
      assert.equal(code, 0, `${stdout}\n${stderr}`);
      assert.match(stdout, /^your client \(A\): nothing wrong the lab can see/m);
    }),
  );

  // Three faulty clients (lib/scenario/faulty-clients/faulty.py), each named by what it did wrong.
  const FAULTY = `${pythonWithPsycopg() ?? 'python3'} lib/scenario/faulty-clients/faulty.py`;
  for (const { fault, title, lab, scenario, words } of [
    {
      fault: 'ignores-refusals',
      title: 'ignores refusals',
      lab: 'fenced',
      scenario: 'pause',
      words: /^ {2}A kept writing with token \d+ after the row refused it as stale/m,
    },
    {
      fault: 'own-counter',
      title: 'counts its own tokens',
      lab: 'no-fencing',
      scenario: 'no-fencing',
      words: /^ {2}A wrote with token 1, which the lease service never granted it \(it was granted \d+/m,
    },
    {
      fault: 'never-renews',
      title: 'never renews',
      lab: 'fenced',
      scenario: 'pause',
      words: /^ {2}A never renewed its lease with token \d+: it ran out by the database's clock while A was running/m,
    },
  ] as const) {
    test(
      `a client that ${title}: the ${lab} lab names it`,
      {
        timeout: TURN_TIMEOUT_MS,
      },
      () =>
        inTurn([lab], async () => {
          const { code, stdout, stderr } = await runScenario([scenario, '--exec-a', `${FAULTY} ${fault}`]);
          assert.equal(code, 0, `the lab's verdict, as it should be whatever the client did:\n${stdout}\n${stderr}`);
          assert.match(stdout, /^your client \(A\) did wrong:$/m);
          assert.match(stdout, words);
        }),
    );
  }

  test('a program that cannot play A: the story cannot go on, in words, exit 1', { timeout: TURN_TIMEOUT_MS }, () =>
    inTurn(['fenced'], async () => {
      const { code, stderr } = await runScenario(['pause', '--exec-a', 'echo "I am no lock client" >&2; exit 3']);
      assert.equal(code, 1, stderr);
      assert.match(stderr, /the story could not go on: A, your program .* ended before the story did; it said:/);
      assert.match(stderr, /I am no lock client/);
    }),
  );

  test('bad usage: an empty command, or a scenario that is not the pause story, exit 2', {
    timeout: 60_000,
  }, async () => {
    const empty = await runScenario(['pause', '--exec-a', '  ']);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /an --exec-a or --exec-b command is not empty/);
    const alone = await runScenario(['pause', '--runner', 'python3 clients/python/runner.py']);
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--runner is a command that runs the --exec-a or --exec-b program, with one of them/);
    const chaos = await runScenario(['chaos', '--exec-b', BASH]);
    assert.equal(chaos.code, 2);
    assert.match(chaos.stderr, /--exec-a and --exec-b are for the pause story's scenarios: pause, no-fencing/);
  });
});
