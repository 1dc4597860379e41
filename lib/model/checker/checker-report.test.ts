import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import { checkHistory } from './checker';
import { checkerReport, verdictLine, writesPerHolder } from './checker-report';
import { single } from './checker-violations';

const exportedAt = new Date(Date.UTC(2026, 10, 30, 10, 30, 0));
const reportOf = (name: 'fenced' | 'no-fencing', title: string) => {
  const events = recorded(name);
  return checkerReport({ labTitle: title, labId: name, verdict: checkHistory(events), events, exportedAt });
};

describe('the report of a safe history', () => {
  const report = reportOf('fenced', 'Fenced');

  test('says what it is about, when, and the verdict in one line', () => {
    const [heading, , exported, , verdict] = report.split('\n');
    assert.equal(heading, '# Checker report: Fenced (`fenced`)');
    assert.equal(
      exported,
      'Exported 2026-11-30T10:30:00.000Z. 17 events, database time 10:28:36.127 to 10:28:39.901 UTC.',
    );
    assert.equal(verdict, '**SAFE: no violation in 2 writes and 2 grants**');
    assert.doesNotMatch(report, /## Violations/);
  });

  test("tallies each holder's writes: A's late write was the one turned away", () => {
    assert.match(
      report,
      /\| holder \| accepted \| rejected \|\n\| --- \| ---: \| ---: \|\n\| A \| 1 \| 1 \|\n\| B \| 1 \| 0 \|\n$/,
    );
  });
});

describe('the report of an unsafe history', () => {
  const report = reportOf('no-fencing', 'No fencing');

  test('counts one violation for the one lost update, and lists its kinds, findings, events and their times', () => {
    assert.match(report, /^\*\*UNSAFE: 1 violation in 3 writes and 2 grants\*\*$/m);
    assert.match(
      report,
      /^1\. \*\*token-went-back, superseded-holder, write-after-expiry\*\*: lost update: B's value "B-1" \(token 65\) overwritten by A with token 64 at 10:28:44\.294 — the row went back to an older token; /m,
    );
    assert.match(report, /^ {3}- the row's token went back from 65 to 64$/m);
    assert.match(report, /^ {3}- A wrote "A-2" with token 64 at 10:28:44\.294, 1817 ms after/m);
    assert.match(report, /^ {3}- event 271 at 10:28:42\.532: B write accepted \(token 65\)$/m);
    assert.match(report, /^ {3}- event 277 at 10:28:44\.294: A write accepted \(token 64\)$/m);
    assert.doesNotMatch(report, /^2\. /m);
    assert.match(report, /\| A \| 2 \| 0 \|/, "A's stale write was accepted: nothing fenced it");
  });
});

describe('edge cases', () => {
  const { ev } = handMade(Date.UTC(2026, 0, 1, 12, 0, 0));

  test('the verdict line counts in words, singular and plural', () => {
    assert.equal(
      verdictLine({ ok: true, violations: [], checked: { writes: 1, grants: 1 } }),
      'SAFE: no violation in 1 write and 1 grant',
    );
    const one = single({ rule: 'final-state', kind: 'k', message: 'm', eventIds: [] });
    assert.equal(
      verdictLine({ ok: false, violations: [one], checked: { writes: 0, grants: 0 } }),
      'UNSAFE: 1 violation in 0 writes and 0 grants',
    );
  });

  test('holder names cannot break the Markdown, and an event missing from the history is said so', () => {
    const events = [ev(1, 0, 'x|*<b>', 'write_accepted', { token: 3, detail: { value: 'v' } })];
    const report = checkerReport({
      labTitle: '# Lab_1',
      labId: 'fenced',
      verdict: {
        ok: false,
        violations: [single({ rule: 'superseded-holder', kind: 'k', message: 'by x|*<b>', eventIds: [1, 99] })],
        checked: { writes: 1, grants: 0 },
      },
      events,
      exportedAt,
    });
    assert.match(report, /^# Checker report: \\# Lab\\_1 /);
    assert.match(report, /^\| x\\\|\\\*\\<b\\> \| 1 \| 0 \|$/m);
    assert.match(report, /^ {3}- event 99 \(not in this history\)$/m);
    assert.match(report, /^ {3}- event 1 at 12:00:00\.000: x\\\|\\\*\\<b\\> write accepted \(token 3\)$/m);
  });

  test('an empty history has no bounds and no writes, and says so', () => {
    const report = checkerReport({
      labTitle: 'Fenced',
      labId: 'fenced',
      verdict: checkHistory([]),
      events: [],
      exportedAt,
    });
    assert.match(report, /^Exported 2026-11-30T10:30:00\.000Z\. 0 events\.$/m);
    assert.match(report, /No writes were recorded\./);
    assert.deepEqual(writesPerHolder([]), new Map());
  });
});
