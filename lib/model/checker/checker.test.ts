import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import { checkHistory, createHistoryChecker, type Rule, type Verdict } from './checker';

// Hand-made histories start at 12:00:00.000 UTC so that messages can be compared in full.
const { ev } = handMade(Date.UTC(2026, 0, 1, 12, 0, 0));
const grant = (id: number, s: number, actor: string, token: number, lab = 'fenced') =>
  ev(id, s, actor, 'lease_acquired', { token, lab });
const wrote = (id: number, s: number, actor: string, token: number, value: string, rowId = 1) =>
  ev(id, s, actor, 'write_accepted', { token, rowId, outcome: 'accepted', detail: { value } });

/** The findings of one rule, whichever violation holds them (a lost update holds every rule its write broke). */
const only = (verdict: Verdict, rule: Rule) =>
  verdict.violations.flatMap((v) => v.findings).filter((f) => f.rule === rule);
const rulesOf = (verdict: Verdict) => [...new Set(verdict.violations.flatMap((v) => v.kinds))].sort();

describe('one violation per lost update', () => {
  test('a stale write that broke three rules is one violation, its kinds listed inside it', () => {
    const verdict = checkHistory(recorded('no-fencing'), { value: 'A-2', lastToken: 64 });
    assert.equal(verdict.violations.length, 1);
    const [lost] = verdict.violations;
    assert.deepEqual(lost?.kinds, ['token-went-back', 'superseded-holder', 'write-after-expiry']);
    assert.equal(
      lost?.message,
      'lost update: B\'s value "B-1" (token 65) overwritten by A with token 64 at 10:28:44.294 — the row went back to an older token; written under a lease superseded by B\'s; written after its lease ran out',
    );
    assert.deepEqual(lost?.eventIds, [261, 271, 277], "A's grant, B's write, A's stale write");
  });

  test('a final row that does not hold the stale write is one more kind of the same violation', () => {
    const history = [
      grant(1, 0, 'A', 7),
      grant(2, 2, 'B', 8),
      wrote(3, 2.1, 'B', 8, 'B-1'),
      wrote(4, 3, 'A', 7, 'A-2'),
    ];
    const verdict = checkHistory(history, { value: 'B-1', lastToken: 8 });
    assert.equal(verdict.violations.length, 1);
    assert.deepEqual(verdict.violations[0]?.kinds, ['token-went-back', 'superseded-holder', 'final-state']);
    assert.match(verdict.violations[0]?.message ?? '', /; the row does not hold the last accepted write$/);
    // Without a stale write, a row that is not the last write is a violation of its own.
    const alone = checkHistory(history.slice(0, 3), { value: 'A-0', lastToken: 8 });
    assert.deepEqual(
      alone.violations.map((v) => v.kinds),
      [['final-state']],
    );
  });

  test("a per-process counter's first steps, every write with token 1 under lease 10, are no violation", () => {
    // The walkthrough's steps 1–5: A writes with its counter, freezes, B takes the lease and writes.
    const steps = [
      grant(1, 0, 'A', 10),
      wrote(2, 0.1, 'A', 1, 'A-1'),
      wrote(3, 0.8, 'A', 1, 'A-2'),
      wrote(4, 1.5, 'A', 1, 'A-3'),
      grant(5, 5, 'B', 11),
      wrote(6, 5.1, 'B', 1, 'B-1'),
    ];
    const checker = createHistoryChecker();
    for (let i = 0; i < steps.length; i++) {
      checker.append(steps, i, i + 1);
      assert.deepEqual(checker.verdict().violations, [], `after event ${steps[i]?.id}`);
      assert.equal(checker.flagged().size, 0);
    }
    // Step 6: A wakes and writes with its counter's token 1, which the row's <= check lets through.
    checker.append([wrote(7, 6, 'A', 1, 'A-4')]);
    const [lost, ...more] = checker.verdict().violations;
    assert.deepEqual(more, []);
    assert.match(
      lost?.message ?? '',
      /^lost update: B's value "B-1" \(token 1\) overwritten by A with the same token 1/,
    );
    assert.deepEqual([...checker.flagged()].sort(), [1, 6, 7]);
  });
});

describe('token-went-back', () => {
  test('an older token overwriting a newer one is a lost update, naming both writes', () => {
    const history = [
      grant(1, 0, 'A', 7),
      grant(2, 2, 'B', 8),
      wrote(3, 2.1, 'B', 8, 'B-1'),
      wrote(4, 3.512, 'A', 7, 'A-2'),
    ];
    const [lost, ...more] = only(checkHistory(history), 'token-went-back');
    assert.deepEqual(more, []);
    assert.deepEqual(lost?.eventIds, [3, 4]);
    assert.equal(lost?.message, "the row's token went back from 8 to 7");
    assert.match(
      checkHistory(history).violations[0]?.message ?? '',
      /^lost update: B's value "B-1" \(token 8\) overwritten by A with token 7 at 12:00:03\.512 — the row went back/,
    );
  });

  test('repeating the current token is allowed, and each row is judged on its own', () => {
    const history = [
      grant(1, 0, 'A', 7),
      wrote(2, 1, 'A', 7, 'A-1', 1),
      wrote(3, 2, 'A', 7, 'A-2', 1),
      grant(4, 3, 'B', 8),
      wrote(5, 4, 'B', 8, 'B-1', 1),
      wrote(6, 5, 'B', 8, 'B-2', 2),
    ];
    assert.deepEqual(checkHistory(history), { ok: true, violations: [], checked: { writes: 4, grants: 2 } });
  });
});

describe('final-state', () => {
  const history = [grant(1, 0, 'A', 7), wrote(2, 1, 'A', 7, 'A-1'), wrote(3, 2, 'A', 7, 'A-2')];

  test('a row that is not what the last accepted write left is a violation naming that write', () => {
    const [wrong, ...more] = only(checkHistory(history, { value: 'A-1', lastToken: 7 }), 'final-state');
    assert.deepEqual(more, []);
    assert.deepEqual(wrong?.eventIds, [3]);
    assert.match(wrong?.message ?? '', /row holds "A-1" \(token 7\), but the last accepted write was A's "A-2"/);
  });

  test('a row equal to the last accepted write, or no row given, is fine', () => {
    assert.equal(checkHistory(history, { value: 'A-2', lastToken: 7 }).ok, true);
    assert.equal(checkHistory(history).ok, true);
  });
});

describe('superseded-holder', () => {
  test('a write accepted after a newer holder had written names the lease, the newer write and the write', () => {
    const history = [
      grant(1, 0, 'A', 7),
      grant(2, 2, 'B', 8),
      wrote(3, 2.5, 'B', 8, 'B-1'),
      wrote(4, 3, 'A', 7, 'A-2'),
    ];
    const stale = only(checkHistory(history), 'superseded-holder');
    assert.deepEqual(
      stale.map((v) => v.eventIds),
      [[1, 3, 4]],
    );
    assert.match(
      stale[0]?.message ?? '',
      /A wrote "A-2" with its lease token 7 at 12:00:03\.000, after B had written with the newer token 8/,
    );
  });

  test("a stale holder's write before the new holder's first write is ordered before it: no violation", () => {
    const history = [grant(1, 0, 'A', 7), grant(2, 2, 'B', 8), wrote(3, 3, 'A', 7, 'A-2'), wrote(4, 4, 'B', 8, 'B-1')];
    assert.deepEqual(checkHistory(history).violations, []);
  });

  test("a token that is not the writer's lease token (a per-process counter) is told inside the lost update it lets through", () => {
    // Both processes count from 1; A's late write repeats B's token, so the row's check lets it through.
    const history = [
      grant(1, 0, 'A', 57),
      grant(2, 2, 'B', 58),
      wrote(3, 2.1, 'B', 1, 'B-1'),
      wrote(4, 3, 'A', 1, 'A-2'),
    ];
    const verdict = checkHistory(history);
    assert.deepEqual(only(verdict, 'token-went-back'), [], 'the counter never goes back: rule 1 alone misses it');
    const [lost, ...more] = verdict.violations;
    assert.deepEqual(more, [], "B's own write, with its counter's token, loses nothing");
    assert.deepEqual(lost?.eventIds, [1, 3, 4]);
    assert.deepEqual(
      lost?.findings.map((f) => [f.eventIds, f.message]),
      [
        [
          [1, 3, 4],
          'A wrote "A-2" with its lease token 57 at 12:00:03.000, after B had written with the newer token 58: its lease was superseded',
        ],
        [[1, 4], 'A wrote with token 1, but its lease is token 57: a token from anywhere else fences nothing'],
      ],
    );
    assert.equal(
      lost?.message,
      "lost update: B's value \"B-1\" (token 1) overwritten by A with the same token 1 at 12:00:03.000 — written under a lease superseded by B's; presenting a token that is not its lease's",
    );
  });

  test('a write by someone never granted a lease is flagged', () => {
    const [stray] = checkHistory([wrote(1, 0, 'C', 3, 'C-1')]).violations;
    assert.deepEqual([stray?.rule, stray?.eventIds], ['superseded-holder', [1]]);
    assert.match(stray?.findings[0]?.message ?? '', /C wrote with token 3, but it was never granted a lease/);
    assert.equal(
      stray?.message,
      'C\'s write "C-1" with token 3 accepted at 12:00:00.000 — written by a process never granted a lease',
    );
  });

  test("writes before the next grant, the holder's own newer grant, and other labs' grants supersede nothing", () => {
    const history = [
      grant(1, 0, 'A', 7),
      wrote(2, 1, 'A', 7, 'A-1'),
      grant(3, 2, 'A', 8), // A's own newer grant does not make its older token someone else's
      grant(4, 2, 'B', 99, 'token-as-text'),
      wrote(5, 3, 'A', 7, 'A-2'),
      grant(6, 5, 'B', 9),
      wrote(7, 6, 'B', 9, 'B-1'),
    ];
    assert.deepEqual(checkHistory(history).violations, []);
  });
});

describe('token-granted-twice', () => {
  test('the same token granted to two holders names both grants', () => {
    const [twice, ...more] = checkHistory([grant(1, 0, 'A', 7), grant(2, 1, 'B', 7)]).violations;
    assert.deepEqual(more, []);
    assert.deepEqual([twice?.rule, twice?.eventIds], ['token-granted-twice', [1, 2]]);
    assert.match(twice?.message ?? '', /token 7 granted twice: to A at 12:00:00\.000 and to B at 12:00:01\.000/);
  });

  test("distinct tokens are fine, and a lab with its own sequence may reuse another lab's numbers", () => {
    const history = [grant(1, 0, 'A', 9), grant(2, 1, 'B', 10), grant(3, 2, 'A', 9, 'token-as-text')];
    assert.deepEqual(checkHistory(history), { ok: true, violations: [], checked: { writes: 0, grants: 3 } });
  });
});

describe('recorded histories', () => {
  test('fenced: safe, and the row as it ended matches', () => {
    const verdict = checkHistory(recorded('fenced'), { value: 'B-1', lastToken: 63 });
    assert.deepEqual(verdict, { ok: true, violations: [], checked: { writes: 2, grants: 2 } });
  });

  test("no fencing: A's stale token 64 overwrites B's 65, after B had written", () => {
    const verdict = checkHistory(recorded('no-fencing'), { value: 'A-2', lastToken: 64 });
    assert.equal(verdict.ok, false);
    assert.deepEqual(rulesOf(verdict), ['superseded-holder', 'token-went-back', 'write-after-expiry']);
    const [wentBack] = only(verdict, 'token-went-back');
    assert.deepEqual(wentBack?.eventIds, [271, 277]);
    assert.deepEqual(only(verdict, 'superseded-holder')[0]?.eventIds, [261, 271, 277]);
    // A's lease ran out at 10:28:42.477 by the database's clock (its grant said so; it never renewed).
    const [late] = only(verdict, 'write-after-expiry');
    assert.deepEqual(late?.eventIds, [261, 277]);
    assert.equal(
      late?.message,
      'A wrote "A-2" with token 64 at 10:28:44.294, 1817 ms after its lease (token 64) had run out by the database\'s clock at 10:28:42.477',
    );
  });

  test("a takeover without a new token: B is granted A's token 1, and A's late write with it is a lost update", () => {
    const verdict = checkHistory(recorded('same-token-takeover'), { value: 'A-4', lastToken: 1 });
    assert.equal(verdict.ok, false);
    assert.deepEqual(rulesOf(verdict), ['superseded-holder', 'token-granted-twice', 'write-after-expiry']);
    const [twice] = only(verdict, 'token-granted-twice');
    assert.deepEqual(twice?.eventIds, [2, 14]);
    assert.equal(twice?.message, 'token 1 granted twice: to A at 00:33:34.057 and to B at 00:33:36.558');
    const [superseded] = only(verdict, 'superseded-holder');
    assert.deepEqual(superseded?.eventIds, [2, 14, 16, 19]);
    // The repeated grant is a violation of its own (recorded at B's grant); the lost update is another.
    assert.equal(verdict.violations.length, 2);
    assert.match(
      verdict.violations[1]?.message ?? '',
      /^lost update: B's value "B-1" \(token 1\) overwritten by A with the same token 1 at /,
    );
    // A renewed once (to 00:33:36.092) before it froze: the expiry is the renewed one.
    assert.match(
      only(verdict, 'write-after-expiry')[0]?.message ?? '',
      /had run out by the database's clock at 00:33:36\.092$/,
    );
  });

  test("a drifting clock: A's late write with token 2 over B's 3, long after its lease ran out by the database's clock", () => {
    const verdict = checkHistory(recorded('drifting-clock'), { value: 'A-3', lastToken: 2 });
    assert.equal(verdict.ok, false);
    assert.deepEqual(rulesOf(verdict), ['superseded-holder', 'token-went-back', 'write-after-expiry']);
    assert.deepEqual(only(verdict, 'token-went-back')[0]?.eventIds, [33, 38]);
    assert.equal(verdict.violations.length, 1, 'one lost update');
    assert.match(
      verdict.violations[0]?.message ?? '',
      /^lost update: B's value "B-1" \(token 3\) overwritten by A with token 2 at /,
    );
    const [late] = only(verdict, 'write-after-expiry');
    assert.deepEqual(late?.eventIds, [23, 38]);
    assert.match(
      late?.message ?? '',
      /^A wrote "A-3" with token 2 at .*, \d{4} ms after its lease \(token 2\) had run out by the database's clock at 00:33:44\.360$/,
    );
  });

  test("a delayed packet, fenced: A's held write with token 5 arrives after B's 6 and is rejected; no violation", () => {
    const verdict = checkHistory(recorded('delayed-packet'), { value: 'B-1', lastToken: 2 });
    assert.deepEqual(verdict, { ok: true, violations: [], checked: { writes: 2, grants: 2 } });
  });

  test("a delayed packet, unfenced: A's write, sent while its lease ran and received after, overwrites B's", () => {
    const verdict = checkHistory(recorded('delayed-packet-unfenced'), { value: 'A-2', lastToken: 3 });
    assert.equal(verdict.ok, false);
    assert.deepEqual(rulesOf(verdict), ['superseded-holder', 'token-went-back', 'write-after-expiry']);
    assert.deepEqual(only(verdict, 'token-went-back')[0]?.eventIds, [32, 34]);
    const [late] = only(verdict, 'write-after-expiry');
    // The grant, the write_sent (before the expiry) and the write PostgreSQL received after it.
    assert.deepEqual(late?.eventIds, [22, 25, 34]);
    assert.match(
      late?.message ?? '',
      /^A wrote "A-2" with token 3 at .*, \d+ ms after its lease \(token 3\) had run out by the database's clock at 09:48:24\.724: a stale write accepted after its lease expired \(sent at .*, while the lease still ran, and received \d+ ms later\)$/,
    );
  });

  test("token as text: B's newer token 10 is turned away against 9", () => {
    const verdict = checkHistory(recorded('token-as-text'));
    assert.equal(verdict.ok, false);
    assert.deepEqual(rulesOf(verdict), ['newer-token-rejected']);
    const [first] = verdict.violations;
    assert.match(
      first?.message ?? '',
      /^B's write with token 10 was rejected as stale at .*, but the row held only token 9$/,
    );
  });

  test('newer-token-rejected: a rejection of an older token is fine, of a newer one is not', () => {
    const rejected = (id: number, token: number, storedToken: number) => ({
      ...grant(id, id, 'X', token),
      kind: 'write_rejected' as const,
      storedToken,
    });
    assert.deepEqual(only(checkHistory([rejected(1, 7, 8)]), 'newer-token-rejected'), []);
    assert.deepEqual(
      only(checkHistory([rejected(1, 10, 9)]), 'newer-token-rejected').map((v) => v.eventIds),
      [[1]],
    );
  });

  test('the verdict does not depend on the order the events arrive in, nor change them', () => {
    const events = recorded('no-fencing');
    const copy = structuredClone(events);
    assert.deepEqual(checkHistory([...events].reverse()), checkHistory(events));
    assert.deepEqual(events, copy);
  });
});

describe('a takeover that kept the token', () => {
  test("two grants of one token, and the first holder's late write over the second's: both named", () => {
    const history = [
      grant(1, 0, 'A', 7),
      wrote(2, 0.1, 'A', 7, 'A-1'),
      grant(3, 3, 'B', 7),
      wrote(4, 3.1, 'B', 7, 'B-1'),
      wrote(5, 4.25, 'A', 7, 'A-2'),
    ];
    const verdict = checkHistory(history, { value: 'A-2', lastToken: 7 });
    assert.deepEqual(rulesOf(verdict), ['superseded-holder', 'token-granted-twice']);
    assert.deepEqual(only(verdict, 'token-granted-twice')[0]?.eventIds, [1, 3]);
    const [lost, ...more] = only(verdict, 'superseded-holder');
    assert.deepEqual(more, []);
    assert.deepEqual(lost?.eventIds, [1, 3, 4, 5]);
    assert.equal(
      lost?.message,
      'B was granted token 7 after A (at 12:00:03.000) and had written "B-1" with it, so A\'s lease was superseded',
    );
    assert.equal(
      verdict.violations.at(-1)?.message,
      'lost update: B\'s value "B-1" (token 7) overwritten by A with the same token 7 at 12:00:04.250 — written under a lease superseded by B\'s, with the same token',
    );
  });

  test('the later holder writing again under the repeated token is no violation of its own', () => {
    const history = [
      grant(1, 0, 'A', 7),
      wrote(2, 0.1, 'A', 7, 'A-1'),
      grant(3, 3, 'B', 7),
      wrote(4, 3.1, 'B', 7, 'B-1'),
    ];
    assert.deepEqual(rulesOf(checkHistory(history)), ['token-granted-twice']);
  });
});

describe('write-after-expiry', () => {
  const grantUntil = (id: number, s: number, actor: string, token: number, untilS: number) =>
    ev(id, s, actor, 'lease_acquired', {
      token,
      detail: { expiresAt: new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + untilS * 1000).toISOString() },
    });

  test("a lost update made after the writer's lease ran out by the database's clock says by how much", () => {
    const history = [
      grantUntil(1, 0, 'A', 7, 5),
      grantUntil(2, 5.05, 'B', 8, 10.05),
      wrote(3, 5.1, 'B', 8, 'B-1'),
      wrote(4, 8, 'A', 7, 'A-3'),
    ];
    const [late, ...more] = only(checkHistory(history), 'write-after-expiry');
    assert.deepEqual(more, []);
    assert.deepEqual(late?.eventIds, [1, 4]);
    assert.equal(
      late?.message,
      'A wrote "A-3" with token 7 at 12:00:08.000, 3000 ms after its lease (token 7) had run out by the database\'s clock at 12:00:05.000',
    );
  });

  test('a renewal moves the end; a late write that loses nothing is not flagged (fencing could not refuse it)', () => {
    const renewed = ev(2, 4, 'A', 'lease_renewed', {
      token: 7,
      detail: { expiresAt: new Date(Date.UTC(2026, 0, 1, 12, 0, 9)).toISOString() },
    });
    // Within the renewed lease: fine. After it, but nobody newer has written: not a lost update.
    const history = [grantUntil(1, 0, 'A', 7, 5), renewed, wrote(3, 8, 'A', 7, 'A-1'), wrote(4, 12, 'A', 7, 'A-2')];
    assert.deepEqual(checkHistory(history).violations, []);
  });
});

describe('checked as the log grows', () => {
  test('the verdict and the flagged events are those of the whole log, however it was sliced; what was handed out stays', () => {
    for (const name of ['no-fencing', 'same-token-takeover', 'drifting-clock', 'token-as-text'] as const) {
      const log = recorded(name);
      const whole = checkHistory(log);
      for (const slice of [1, 2, 5, log.length]) {
        const checker = createHistoryChecker();
        const handedOut: Array<[Verdict, ReadonlySet<number>, Verdict, number[]]> = [];
        for (let from = 0; from < log.length; from += slice) {
          checker.append(log, from, Math.min(log.length, from + slice));
          const verdict = checker.verdict();
          const flagged = checker.flagged();
          handedOut.push([verdict, flagged, structuredClone(verdict), [...flagged]]);
        }
        assert.deepEqual(checker.verdict(), whole, `${name}, slices of ${slice}`);
        assert.deepEqual(
          [...checker.flagged()].sort((a, b) => a - b),
          [...new Set(whole.violations.flatMap((v) => v.eventIds))].sort((a, b) => a - b),
        );
        for (const [verdict, flagged, verdictThen, flaggedThen] of handedOut) {
          assert.deepEqual(verdict, verdictThen);
          assert.deepEqual([...flagged], flaggedThen);
        }
      }
    }
  });

  test('a row given at the end is judged against the log checked so far', () => {
    const checker = createHistoryChecker();
    checker.append(recorded('no-fencing'));
    const row = { value: 'A-2', lastToken: 64 };
    assert.deepEqual(checker.verdict(row), checkHistory(recorded('no-fencing'), row));
  });
});
