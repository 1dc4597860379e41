import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { recorded } from '../../testing/histories';
import { storyHistory } from '../../testing/story-histories';
import type { WireEvent } from '../core/wire';
import { WORKER_LAB_IDS } from '../lab/lab-kinds';
import { falseClaims, falseNarration, rowAfter } from './narration-oracle';
import { factsFrom, walkthroughFor } from './walkthrough';

/*
 * Every sentence every step can say, held to the events, over generated histories of every lab's
 * story (lib/testing/story-histories.ts: stalls past the lease before the freeze, re-grants, B refused
 * and trying again, late answers, lease_lost recorded or not): at every moment of each history (each
 * prefix of its events, as a page holds them), each step the lab has reached is narrated and the
 * narration oracle reads back every token, value, comparison, setting, duration and count it names.
 * 1,000 histories per lab here; `npm run bench -- narration` runs many more and counts the sentences.
 */

const HISTORIES_PER_LAB = 1_000;

for (const lab of WORKER_LAB_IDS) {
  test(`${lab}: no false sentence at any moment of ${HISTORIES_PER_LAB} generated histories`, {
    timeout: 120_000,
  }, () => {
    fc.assert(
      fc.property(storyHistory(lab), (events) => {
        const { wrong } = falseNarration(lab, events);
        assert.deepEqual(wrong, []);
      }),
      { numRuns: HISTORIES_PER_LAB, seed: 34 },
    );
  });
}

test('every recorded run (the fixtures from real runs) says only true things at every moment', () => {
  for (const lab of [
    'fenced',
    'no-fencing',
    'token-as-text',
    'same-token-takeover',
    'drifting-clock',
    'drifting-clock-fenced',
    'delayed-packet',
    'delayed-packet-unfenced',
  ] as const) {
    const { wrong, sentences } = falseNarration(lab, recorded(lab));
    assert.deepEqual(wrong, [], lab);
    assert.ok(sentences > 20, `${lab}: ${sentences} sentences read`);
  }
});

test('the oracle catches a planted false sentence: a token, a comparison, an outcome, a setting, a duration, a count', () => {
  const events = recorded('fenced');
  const steps = walkthroughFor('fenced');
  const facts = factsFrom(events, 'fenced');
  const row = rowAfter(events);
  const said = (id: string) => steps.find((s) => s.id === id)?.narrate(facts, row) ?? '';
  const plants: Array<[string, string, string | RegExp]> = [
    ['b-takes-over', 'a newer token, 63', 'an older token, 63'],
    ['b-takes-over', 'with token 63: accepted', 'with token 62: accepted'],
    ['a-wakes', 'rejected as stale, because the row held token 63', 'accepted'],
    ['a-writes', 'writes again every 0.3 s', 'writes again every 0.7 s'],
    ['a-expires', 'its writes carrying token 62', 'its writes carrying token 63'],
    ['a-wakes', 'its old token 62', 'its old token 63'],
    ['a-expires', 'ran out at 10:28:38.085', 'ran out at 23:59:59.999'],
    ['a-expires', "A's lease with token 62 ran out", "A's lease with token 63 ran out"],
  ];
  for (const [id, truth, lie] of plants) {
    const text = said(id);
    assert.ok(text.includes(truth), `${id} says ${JSON.stringify(truth)}: ${text}`);
    assert.deepEqual(falseClaims(text, events, row), [], `${id} as told`);
    const planted = text.replace(truth, lie as string);
    assert.notDeepEqual(falseClaims(planted, events, row), [], `${id} with ${JSON.stringify(lie)} planted`);
  }
  const counted = 'B went on: 2 more writes so far, with tokens 64, 65, each refused as stale too.';
  assert.notDeepEqual(falseClaims(counted, events, row), [], 'a count of refusals that never happened');
  assert.notDeepEqual(
    falseClaims(
      "PostgreSQL received A's write 40 ms after A sent it, 12 ms after A's lease ran out by the database's clock: \"A-2\"",
      events,
      row,
    ),
    [],
    'a duration the events do not show',
  );
});

test("a client's retry of the held write: told when it happened, and the oracle catches a planted lie about it", () => {
  for (const lab of ['delayed-packet', 'delayed-packet-unfenced'] as const) {
    const retried = fc
      .sample(storyHistory(lab), { numRuns: 200, seed: 34 })
      .filter((events) => factsFrom(events, lab).retryA !== undefined);
    assert.ok(retried.length > 20, `${lab}: ${retried.length} of 200 generated histories with a retry`);
    const events = retried[0] as WireEvent[];
    const facts = factsFrom(events, lab);
    const row = rowAfter(events);
    const text =
      walkthroughFor(lab)
        .find((s) => s.id === 'held-write-arrives')
        ?.narrate(facts, row) ?? '';
    assert.match(text, /Before it, A's client had given up waiting after 4 s and sent the same write again/);
    assert.deepEqual(falseClaims(text, events, row), [], `${lab} as told`);
    const plants: Array<[string | RegExp, string]> = [
      ['after 4 s', 'after 9 s'],
      [/A's write \d+ ms after A sent it/, "A's write 1 ms after A sent it"],
      lab === 'delayed-packet-unfenced'
        ? [': the same write applied twice', ": B's newer value was overwritten, a lost update"]
        : ['on a new connection: "A-', 'on a new connection: "B-'],
    ];
    for (const [truth, lie] of plants) {
      const planted = text.replace(truth, lie);
      assert.notEqual(planted, text, `${lab}: ${String(truth)} in ${text}`);
      assert.notDeepEqual(falseClaims(planted, events, row), [], `${lab} with ${JSON.stringify(lie)} planted`);
    }
  }
});

/** A history where A's lease ran out twice (it stalled, took the lease again, and lost it again): two expiries to confuse. */
function twoExpiries(): WireEvent[] {
  const at = (s: number) => Date.UTC(2026, 11, 4, 12, 0, s);
  const iso = (s: number) => new Date(at(s)).toISOString();
  const rows: Array<Omit<WireEvent, 'lab' | 'detail'> & { detail?: Record<string, unknown> }> = [
    { id: 1, at: at(0), actor: 'A', kind: 'lease_acquired', token: 2 },
    { id: 2, at: at(1), actor: 'A', kind: 'write_accepted', token: 2, detail: { value: 'A-1' } },
    { id: 3, at: at(4), actor: 'A', kind: 'lease_expired', token: 2, detail: { expiresAt: iso(3) } },
    { id: 4, at: at(5), actor: 'A', kind: 'lease_acquired', token: 6 },
    { id: 5, at: at(9), actor: 'A', kind: 'lease_expired', token: 6, detail: { expiresAt: iso(8) } },
    { id: 6, at: at(10), actor: 'B', kind: 'lease_acquired', token: 5 },
    { id: 7, at: at(11), actor: 'B', kind: 'write_accepted', token: 5, detail: { value: 'B-1' } },
    { id: 8, at: at(12), actor: 'A', kind: 'write_sent', token: 6, detail: { value: 'A-2' } },
    { id: 9, at: at(13), actor: 'A', kind: 'write_rejected', token: 6, storedToken: 5, detail: { value: 'A-2' } },
    { id: 10, at: at(14), actor: 'A', kind: 'lease_lost', token: 6, detail: { reason: 'the row holds a newer token' } },
  ];
  return rows.map((e) => ({ lab: 'fenced', ...e, detail: e.detail ?? {} }));
}

test('the oracle keys each claim on the event the sentence names, not on any expiry or lost lease', () => {
  const events = twoExpiries();
  const row = rowAfter(events);
  // B's token 5 is newer than A's first lease (2) but older than the one that ran out before B's grant (6).
  const truths = [
    'B took the lease with an older token, 5.',
    'A wrote "A-2" with its token 6, 5000 ms after its lease ran out by the database\'s clock: rejected as stale, because the row held token 5.',
    "PostgreSQL received A's write 1000 ms after A sent it, 5000 ms after A's lease ran out by the database's clock: \"A-2\"",
    'A woke up and sent its write "A-2" with its token 6: rejected as stale, because the row held token 5. A recorded that it had lost the lease ("the row holds a newer token").',
  ];
  const lies = [
    'B took the lease with a newer token, 5.',
    // 10000 ms after the *first* lease's end: true of an expiry, but not of the lease token 6 was granted.
    'A wrote "A-2" with its token 6, 10000 ms after its lease ran out by the database\'s clock: rejected as stale, because the row held token 5.',
    "PostgreSQL received A's write 1000 ms after A sent it, 10000 ms after A's lease ran out by the database's clock: \"A-2\"",
    'A woke up and sent its write "A-2" with its token 6: rejected as stale, because the row held token 5. A recorded that it had lost the lease ("my lease ran out").',
  ];
  for (const truth of truths) assert.deepEqual(falseClaims(truth, events, row), [], truth);
  for (const lie of lies) assert.notDeepEqual(falseClaims(lie, events, row), [], lie);
});

test("the oracle holds the drifting clock's clauses to A's start, A's sent write and the database's expiry", () => {
  const events = recorded('drifting-clock');
  const steps = walkthroughFor('drifting-clock');
  const facts = factsFrom(events, 'drifting-clock');
  const row = rowAfter(events);
  const said = (id: string) => steps.find((s) => s.id === id)?.narrate(facts, row) ?? '';
  const plants: Array<[string, string, string]> = [
    ['setup', 'it moves 250 ms', 'it moves 500 ms'],
    ['both-start', 'that is 18 s and 4 s of real time', 'that is 6 s and 4 s of real time'],
    ['both-start', 'that is 18 s and 4 s of real time', 'that is 18 s and 1 s of real time'],
    ['a-expires', 'had moved 1.25 s of the 5 s', 'had moved 2.5 s of the 5 s'],
    ['a-expires', 'had moved 1.25 s of the 5 s', 'had moved 1.25 s of the 3 s'],
    ['a-writes-late', "A's clock read 00:33:41.379", "A's clock read 00:33:43.379"],
    ['a-writes-late', 'ran until 00:33:44.361', 'ran until 00:33:49.361'],
    // The right reading, told of another write of A's than the one it sent with it.
    ['a-writes-late', 'A wrote "A-3"', 'A wrote "A-2"'],
    ['the-row', "the lease's end is the database's (00:33:44.360)", "the lease's end is the database's (00:33:41.379)"],
  ];
  for (const [id, truth, lie] of plants) {
    const text = said(id);
    assert.ok(text.includes(truth), `${id} says ${JSON.stringify(truth)}: ${text}`);
    assert.deepEqual(falseClaims(text, events, row), [], `${id} as told`);
    assert.notDeepEqual(falseClaims(text.replace(truth, lie), events, row), [], `${id} with ${JSON.stringify(lie)}`);
  }
});

test('"The proxy held those bytes" is said only of a write the proxy recorded catching', () => {
  const events = recorded('delayed-packet');
  const facts = factsFrom(events, 'delayed-packet');
  const row = rowAfter(events);
  const text =
    walkthroughFor('delayed-packet')
      .find((s) => s.id === 'write-held')
      ?.narrate(facts, row) ?? '';
  assert.match(text, /The proxy held those bytes/);
  assert.deepEqual(falseClaims(text, events, row), [], 'as told, with the proxy’s packet_held');
  // The same words over a history where that write went unanswered for another reason (A stopped by the
  // operating system, say): the proxy recorded no hold.
  const unheld = events.filter((e) => e.kind !== 'packet_held');
  assert.notDeepEqual(falseClaims(text, unheld, row), [], 'a hold the proxy never recorded');
});
