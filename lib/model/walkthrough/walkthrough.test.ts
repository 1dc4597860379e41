import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import { factsFrom, walkthroughFor } from './walkthrough';

test('the fenced walkthrough tells the seed story with the tokens from a real run', () => {
  const events = recorded('fenced');
  const facts = factsFrom(events);
  const steps = walkthroughFor('fenced');
  assert.ok(
    steps.every((step) => step.done(facts)),
    'every step is complete at the end of the run',
  );
  const a = facts.tokenA as number;
  const b = facts.tokenB as number;
  const text = (id: string) => steps.find((s) => s.id === id)?.narrate(facts) ?? '';
  assert.match(
    text('a-writes'),
    new RegExp(`^A, a real process, took the lease with token ${a} and wrote "A-1" with it: accepted\\.`),
  );
  assert.match(
    text('b-takes-over'),
    new RegExp(`^B took the lease with a newer token, ${b}, .* B wrote "B-1" with token ${b}: accepted\\.`),
  );
  assert.match(
    text('a-wakes'),
    new RegExp(
      `^A woke up and sent its write "A-2" with its old token ${a}: rejected as stale, because the row held token ${b}\\.`,
    ),
  );
  assert.match(
    text('the-row'),
    new RegExp(
      `^The row holds B's value "B-1" with token ${b}\\. A's late write, "A-2" with token ${a}, changed nothing`,
    ),
  );
  const later = steps.at(-1)?.narrate(facts, { value: 'B-2', lastToken: b }) ?? '';
  assert.match(
    later,
    new RegExp(`^The row holds "B-2" with token ${b}\\.`),
    'the last step reads the row as it is now',
  );
});

test('a step is not done before its event: halfway through, A has frozen but B has not written', () => {
  const events = recorded('fenced');
  const pause = events.find((e) => e.kind === 'pause_started') as WireEvent;
  const facts = factsFrom(events.filter((e) => e.id <= pause.id));
  const steps = walkthroughFor('fenced');
  const done = steps.map((s) => [s.id, s.done(facts)]);
  assert.deepEqual(done.slice(1, 5), [
    ['a-writes', true],
    ['a-freezes', true],
    ['a-expires', false],
    ['b-takes-over', false],
  ]);
});

test('without fencing the last steps point at the lost update', () => {
  const facts = factsFrom(recorded('no-fencing'));
  const steps = walkthroughFor('no-fencing');
  assert.match(
    steps.find((s) => s.id === 'a-wakes')?.narrate(facts) ?? '',
    /: accepted\. The UPDATE checks no token\. The row went from "B-1" \(token 65\) to "A-2" \(token 64\): B's newer value was overwritten, a lost update\./,
  );
  assert.match(
    steps.find((s) => s.id === 'the-row')?.narrate(facts) ?? '',
    /^The row holds A's value "A-2" with token 64: A’s stale write\. B's value "B-1" with token 65 was lost/,
  );
});

test("token as text: B's step says the rightful holder was turned away", () => {
  const facts = factsFrom(recorded('token-as-text'));
  const text =
    walkthroughFor('token-as-text')
      .find((s) => s.id === 'b-takes-over')
      ?.narrate(facts) ?? '';
  assert.match(
    text,
    /B wrote "B-1" with token 10: rejected as stale, because the row held token 9\. B was the rightful holder/,
  );
  const wakes =
    walkthroughFor('token-as-text')
      .find((s) => s.id === 'a-wakes')
      ?.narrate(facts) ?? '';
  assert.doesNotMatch(wakes, /newer value/);
  assert.match(
    wakes,
    /The row went from "A-1" \(token 9\) to "A-2" \(token 9\): it never held B's value, which was refused\./,
  );
});

test("a takeover without a new token: B's step says it was handed A's token, and the end says why every grant must mint", () => {
  const facts = factsFrom(recorded('same-token-takeover'));
  const steps = walkthroughFor('same-token-takeover');
  assert.ok(steps.every((step) => step.done(facts)));
  assert.deepEqual([facts.tokenA, facts.tokenB], [1, 1]);
  const text = (id: string) => steps.find((s) => s.id === id)?.narrate(facts) ?? '';
  assert.match(
    text('b-takes-over'),
    /^B took over A's expired lease, and the lease service handed it A's token 1 instead of minting a new one\./,
  );
  assert.match(
    text('a-wakes'),
    /^A woke up and sent its write "A-4" with its token 1 \(the same as B's token 1\): accepted\. The row's last_token was 1, and 1 <= 1/,
  );
  assert.match(text('the-row'), /every grant must mint a new token, in the same committed transaction that records it/);
});

test('a drifting clock: its own story, with no freeze, told from a real run', () => {
  const events = recorded('drifting-clock');
  const facts = factsFrom(events, 'drifting-clock');
  const steps = walkthroughFor('drifting-clock');
  assert.deepEqual(
    steps.map((s) => [s.id, s.action.kind]),
    [
      ['setup', 'reset'],
      ['both-start', 'start-both'],
      ['a-expires', 'none'],
      ['b-takes-over', 'none'],
      ['a-writes-late', 'none'],
      ['the-row', 'none'],
    ],
  );
  assert.ok(steps.every((step) => step.done(facts)));
  assert.ok(!events.some((e) => e.kind === 'pause_started'), 'nothing froze');
  assert.deepEqual([facts.tokenA, facts.tokenB], [2, 3]);
  const text = (id: string) => steps.find((s) => s.id === id)?.narrate(facts) ?? '';
  assert.match(text('setup'), /The drift is applied to A's reading of the clock; everything else is real\./);
  assert.match(
    text('a-expires'),
    /^By the database's clock, A's lease ran out at 00:33:44\.360\. A did not renew in time/,
  );
  assert.match(
    text('b-takes-over'),
    /^B took the lease with a newer token, 3, .* wrote "B-1" with token 3: accepted\./,
  );
  assert.match(
    text('a-writes-late'),
    /^A's clock read 00:33:41\.379, and by it A's lease ran until 00:33:44\.361\. A wrote "A-3" with its old token 2, \d+ ms after its lease ran out by the database's clock: accepted\. The row went from "B-1" \(token 3\) to "A-3" \(token 2\): B's newer value was overwritten, a lost update\. .*In the drifting clock, fenced, the same write is refused/,
  );
  assert.match(text('the-row'), /judging the lease by the database's clock/);
});

test("the drifting clock, fenced: the same story told from a real run, and A's late write rejected", () => {
  const events = recorded('drifting-clock-fenced');
  const facts = factsFrom(events, 'drifting-clock-fenced');
  const steps = walkthroughFor('drifting-clock-fenced');
  assert.deepEqual(
    steps.map((s) => s.id),
    walkthroughFor('drifting-clock').map((s) => s.id),
    'the same steps as without fencing',
  );
  assert.ok(steps.every((step) => step.done(facts)));
  assert.deepEqual([facts.tokenA, facts.tokenB], [3, 4]);
  const text = (id: string) => steps.find((s) => s.id === id)?.narrate(facts) ?? '';
  assert.match(
    text('setup'),
    /row 12 of unguarded_rows. Every grant of the lease carries a token from the database sequence write_epoch; every write presents its token/,
  );
  assert.match(
    text('a-writes-late'),
    /A wrote "A-3" with its old token 3, \d+ ms after its lease ran out by the database's clock: rejected as stale, because the row held token 4\. A still believed/,
  );
  assert.match(
    text('the-row'),
    /^The row holds B's value "B-1" with token 4\. A's late write, "A-3" with token 3, changed nothing/,
  );
});

test("a drifting clock's steps are not done before their events", () => {
  const events = recorded('drifting-clock');
  const upTo = (id: number) =>
    factsFrom(
      events.filter((e) => e.id <= id),
      'drifting-clock',
    );
  const steps = walkthroughFor('drifting-clock');
  const done = (id: number) => steps.map((s) => s.done(upTo(id)));
  // A wrote (25) but B had not started: step 2 waits for both.
  assert.deepEqual(done(25).slice(1), [false, false, false, false, true]);
  // B started (26); A's lease has not run out yet.
  assert.deepEqual(done(26).slice(1, 3), [true, false]);
  // B wrote (33); A's late write (38) not yet.
  assert.deepEqual(done(33).slice(1, 5), [true, true, true, false]);
});

test('a delayed packet: its own story, nothing frozen, the held write rejected when fenced and a lost update when not', () => {
  for (const lab of ['delayed-packet', 'delayed-packet-unfenced'] as const) {
    const events = recorded(lab);
    const facts = factsFrom(events, lab);
    const steps = walkthroughFor(lab);
    assert.deepEqual(
      steps.map((s) => [s.id, s.action.kind]),
      [
        ['setup', 'reset'],
        ['a-writes', 'start'],
        ['write-held', 'hold'],
        ['b-takes-over', 'start'],
        ['held-write-arrives', 'release'],
        ['the-row', 'none'],
      ],
    );
    assert.ok(
      steps.every((step) => step.done(facts)),
      lab,
    );
    assert.ok(!events.some((e) => e.kind === 'pause_started'), 'nothing froze');
    const text = (id: string) => steps.find((s) => s.id === id)?.narrate(facts) ?? '';
    assert.match(text('setup'), /the held bytes are really held, on a real TCP socket/);
    assert.match(
      text('write-held'),
      /^A sent "A-2" with token \d+ at .*, while its lease still ran\. The proxy held those bytes/,
    );
    if (lab === 'delayed-packet') {
      assert.deepEqual([facts.tokenA, facts.tokenB], [1, 2]);
      assert.match(
        text('held-write-arrives'),
        /^PostgreSQL received A's write \d+ ms after A sent it, \d+ ms after A's lease ran out by the database's clock: "A-2" with token 1, rejected as stale, because the row held token 2\./,
      );
      assert.match(text('the-row'), /retried the same write with the same token 1 would be refused the same way/);
    } else {
      assert.deepEqual([facts.tokenA, facts.tokenB], [3, 4]);
      assert.match(text('held-write-arrives'), /"A-2" with token 3, accepted\. .*lost update/);
      assert.match(text('the-row'), /the same write can be applied twice/);
    }
  }
});

test("a delayed packet's steps are not done before their events", () => {
  const events = recorded('delayed-packet');
  const steps = walkthroughFor('delayed-packet');
  const done = (id: number) =>
    steps.map((s) =>
      s.done(
        factsFrom(
          events.filter((e) => e.id <= id),
          'delayed-packet',
        ),
      ),
    );
  // A wrote (4); its next write sent (5) and caught by the proxy (6), its lease not yet run out.
  assert.deepEqual(done(6).slice(1, 5), [true, false, false, false]);
  // A's lease ran out (7); B not yet.
  assert.deepEqual(done(7).slice(1, 5), [true, true, false, false]);
  // B wrote (12); the held bytes released (13), the write's answer not yet recorded.
  assert.deepEqual(done(13).slice(1, 5), [true, true, true, false]);
  assert.deepEqual(done(14).slice(1, 5), [true, true, true, true]);
  // Without the proxy's record of the hold, no write was held on the wire: the story stays at its start.
  const unheld = events.filter((e) => e.kind !== 'packet_held');
  assert.deepEqual(
    steps.slice(1, 5).map((s) => s.done(factsFrom(unheld, 'delayed-packet'))),
    [true, false, false, false],
  );
});
