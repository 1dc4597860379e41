import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { listEvents } from '../../db/events';
import { closePool } from '../../db/pool';
import type { LabEvent } from '../model/core/events';
import { sharedLab } from '../model/lab/lab-instance';
import type { LabId } from '../model/lab/lab-kinds';
import { getSupervisor } from '../supervisor/supervisor';
import { runDelayedPacketScenario } from './delayed-packet';
import { runDriftScenario } from './drift';
import { runPauseScenario } from './pause';

/*
 * The pause scenario with real worker processes in every lab: A frozen in its critical window past
 * its TTL, B taking over, A waking up with its old token. The fenced lab holds; each broken lab
 * breaks in the way it names. Everything asserted is read back from the events the processes wrote.
 */

/*
 * The tests of each describe drive different labs, so they run side by side, a few at a time (each is
 * mostly real time: a lease running out while A is frozen or slow); the machine has 2 CPUs, and a
 * worker starved for long misses its own lease. The describes share the drifting-clock lab, and run one
 * after another.
 */
const SIDE_BY_SIDE = { concurrency: 3 };

after(async () => {
  await getSupervisor().shutdown();
  await closePool();
});

async function run(lab: LabId) {
  const outcome = await runPauseScenario(sharedLab(lab), () => undefined);
  const events = await listEvents({ lab });
  const byA = (kind: string) => events.filter((e) => e.actor === 'A' && e.kind === kind);
  const byB = (kind: string) => events.filter((e) => e.actor === 'B' && e.kind === kind);
  const pauseEnded = byA('pause_ended')[0] as LabEvent;
  const isOutcome = (e: LabEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';
  const lateA = events.find((e) => e.actor === 'A' && e.id > pauseEnded.id && isOutcome(e)) as LabEvent;
  const writeB = events.find((e) => e.actor === 'B' && isOutcome(e)) as LabEvent;
  const violations = brokenRules(outcome.lines);
  return { outcome, events, byA, byB, lateA, writeB, violations };
}

/** The kinds of `events` in order, keeping only the first of each (actor, kind) pair listed. */
function storyOf(events: LabEvent[], wanted: Array<[string, string]>): string[] {
  const seen = new Set<string>();
  return events.flatMap((e) => {
    const key = `${e.actor} ${e.kind}`;
    if (seen.has(key) || !wanted.some(([actor, kind]) => actor === e.actor && kind === e.kind)) return [];
    seen.add(key);
    return [key];
  });
}

describe('the pause, with real processes', SIDE_BY_SIDE, () => {
  test('fenced: A frozen past its TTL, B takes over, A wakes and its write is rejected as stale', async () => {
    const { outcome, events, byA, byB, lateA, writeB, violations } = await run('fenced');
    assert.equal(outcome.safe, true, outcome.verdict);
    assert.deepEqual(violations, [], 'the checker finds nothing wrong');

    const grantA = byA('lease_acquired')[0] as LabEvent;
    const grantB = byB('lease_acquired')[0] as LabEvent;
    assert.ok((grantB.token as number) > (grantA.token as number));
    assert.equal(writeB.kind, 'write_accepted');
    assert.equal(lateA.kind, 'write_rejected');
    assert.deepEqual([lateA.token, lateA.storedToken], [grantA.token, grantB.token]);

    // The history tells exactly this story, in this order.
    const after = events.filter((e) => e.id > (byA('write_accepted')[0] as LabEvent).id - 1);
    assert.deepEqual(
      storyOf(after, [
        ['A', 'write_accepted'],
        ['A', 'pause_started'],
        ['A', 'lease_expired'],
        ['B', 'lease_acquired'],
        ['B', 'write_accepted'],
        ['A', 'pause_ended'],
        ['A', 'write_rejected'],
      ]),
      [
        'A write_accepted',
        'A pause_started',
        'A lease_expired',
        'B lease_acquired',
        'B write_accepted',
        'A pause_ended',
        'A write_rejected',
      ],
    );
    // A's expiry by database time precedes B's grant, and A's belief outlived the truth.
    const expired = byA('lease_expired')[0] as LabEvent;
    assert.equal(expired.token, grantA.token);
    assert.ok(Date.parse(String(expired.detail?.expiresAt)) <= grantB.at.getTime());
    assert.ok(expired.id < grantB.id);
    assert.match(String(pauseEndedBelief(events)), /^I hold token \d+ until .* \(by my clock\)$/);
    const sentLate = events.filter((e) => e.actor === 'A' && e.kind === 'write_sent').at(-1) as LabEvent;
    assert.ok(sentLate.id > (byA('pause_ended')[0] as LabEvent).id, 'the write was sent after waking');
  });

  test('no fencing: the same pause, and A overwrites B (a lost update the history shows)', async () => {
    const { outcome, lateA, writeB, violations } = await run('no-fencing');
    assert.equal(outcome.safe, false);
    assert.ok(violations.includes('token-went-back'), 'the checker names the lost update');
    assert.equal(writeB.kind, 'write_accepted');
    assert.equal(lateA.kind, 'write_accepted');
    assert.ok((lateA.token as number) < (writeB.token as number));
    assert.ok(lateA.id > writeB.id, 'the older token was accepted after the newer one');
    assert.match(
      outcome.verdict,
      /^UNSAFE \(No fencing\) \(the checker\): .*lost update: B's value "B-1" \(token \d+\) overwritten by A with token \d+/,
    );
  });

  test('read-check-write: A checked before its pause and wrote without checking after it', async () => {
    const { outcome, lateA, violations } = await run('read-check-write');
    assert.equal(outcome.safe, false);
    assert.ok(violations.includes('token-went-back'));
    assert.equal(lateA.kind, 'write_accepted');
    assert.equal(lateA.detail?.path, 'checked in the app, written unconditionally');
  });

  test("token as text: B's token 10 is rejected against 9, and A's 9 wins", async () => {
    const { outcome, writeB, lateA, violations } = await run('token-as-text');
    assert.equal(outcome.safe, false);
    assert.ok(violations.includes('newer-token-rejected'));
    assert.deepEqual([writeB.kind, writeB.token, writeB.storedToken], ['write_rejected', 10, 9]);
    assert.deepEqual([lateA.kind, lateA.token], ['write_accepted', 9]);
  });

  test('per-process counter: both processes present token 1 though their leases differ', async () => {
    const { outcome, byA, byB, writeB, lateA, violations } = await run('per-process-counter');
    assert.equal(outcome.safe, false);
    assert.ok(violations.includes('superseded-holder'));
    assert.notEqual(byA('lease_acquired')[0]?.token, byB('lease_acquired')[0]?.token);
    assert.deepEqual([writeB.token, lateA.token], [1, 1]);
    assert.equal(lateA.kind, 'write_accepted');
  });

  test('bypass: regular writes are fenced, but the overdue write takes the unguarded path', async () => {
    const { outcome, writeB, lateA, violations } = await run('bypass');
    assert.equal(outcome.safe, false);
    assert.ok(violations.includes('token-went-back'));
    assert.equal(writeB.detail?.path, 'fenced');
    assert.equal(lateA.detail?.path, 'catch-up path, bypasses the guard');
    assert.equal(lateA.kind, 'write_accepted');
  });
});

describe('two more ways a holder outlives its lease, with real processes', SIDE_BY_SIDE, () => {
  test("a takeover without a new token: B is handed A's token, and A's late write with it passes the <= check", async () => {
    const { outcome, byA, byB, writeB, lateA, violations } = await run('same-token-takeover');
    assert.equal(outcome.safe, false);
    const grantA = byA('lease_acquired')[0] as LabEvent;
    const grantB = byB('lease_acquired')[0] as LabEvent;
    assert.equal(grantB.token, grantA.token, 'the takeover kept the token');
    assert.equal(grantB.detail?.takeover, 'kept the token');
    assert.deepEqual([writeB.kind, writeB.token, writeB.detail?.path], ['write_accepted', grantA.token, 'fenced']);
    assert.deepEqual([lateA.kind, lateA.token, lateA.detail?.path], ['write_accepted', grantA.token, 'fenced']);
    assert.ok(lateA.id > writeB.id);
    assert.ok(violations.includes('token-granted-twice'), 'the checker names the repeated grant');
    assert.ok(violations.includes('superseded-holder'), 'and the lost update');
    assert.match(
      outcome.verdict,
      /^UNSAFE \(A takeover without a new token\) \(the checker\): .*lost update: B's value "B-1" \(token (\d+)\) overwritten by A with the same token \1/,
    );
  });

  for (const lab of ['drifting-clock', 'drifting-clock-fenced'] as const) {
    const fenced = lab === 'drifting-clock-fenced';
    test(`${lab}: nothing freezes, A's slow clock makes it write after the database's expiry, ${fenced ? 'and the row refuses it' : "over B's value"}`, async () => {
      const outcome = await runDriftScenario(sharedLab(lab), () => undefined);
      const events = await listEvents({ lab });
      assert.equal(outcome.safe, fenced);
      assert.ok(!events.some((e) => e.kind.startsWith('pause_')), 'nothing froze');
      const started = events.find((e) => e.actor === 'A' && e.kind === 'worker_started') as LabEvent;
      assert.equal(started.detail?.clockSlowPercent, 75, "A's setting is in its start event");
      const grantB = events.find((e) => e.actor === 'B' && e.kind === 'lease_acquired') as LabEvent;
      const expiry = events.find((e) => e.actor === 'A' && e.kind === 'lease_expired') as LabEvent;
      const isOutcome = (e: LabEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';
      const writeB = events.find((e) => e.actor === 'B' && isOutcome(e)) as LabEvent;
      const lateA = events.find((e) => e.actor === 'A' && isOutcome(e) && e.id > writeB.id) as LabEvent;
      assert.ok((grantB.token as number) > (expiry.token as number), 'B took over with a newer token');
      assert.equal(lateA.kind, fenced ? 'write_rejected' : 'write_accepted');
      assert.equal(lateA.token, expiry.token, 'A wrote with the token whose lease had expired');
      const expiresAt = Date.parse(String(expiry.detail?.expiresAt));
      assert.ok(lateA.at.getTime() > expiresAt, "A's write came after its lease ran out by the database's clock");
      // What A read on its own clock when it sent that write: by it, the lease still ran.
      const sent = events
        .filter((e) => e.actor === 'A' && e.kind === 'write_sent' && e.id < lateA.id)
        .at(-1) as LabEvent;
      assert.ok(Date.parse(String(sent.detail?.myClock)) < Date.parse(String(sent.detail?.believedUntil)));
      const violations = brokenRules(outcome.lines);
      if (fenced) {
        assert.deepEqual(violations, [], 'the checker finds nothing wrong');
        assert.equal(lateA.storedToken, writeB.token, "the row held B's token when it refused A's");
        assert.match(outcome.verdict, /^safe \(the checker\): no violation in \d+ writes and \d+ grants$/);
        return;
      }
      assert.ok(violations.includes('token-went-back'), 'the checker names the lost update');
      assert.ok(violations.includes('write-after-expiry'), "and the write after the database's expiry");
      // How many of A's writes land late depends on the machine's timing (on a loaded machine A wrote
      // twice before it learned, each a violation): the verdict names B's value overwritten, first.
      assert.match(
        outcome.verdict,
        /^UNSAFE \(A drifting clock\) \(the checker\): (1 violation|\d+ violations) in \d+ writes and \d+ grants: lost update: B's value "B-1" \(token \d+\) overwritten by A with token \d+ at .*written after its lease ran out$/,
      );
    });
  }
});

describe("the drifting clock's worker judging its lease by the database's clock", () => {
  test("A, as slow, asks the database before its next write, finds its lease over and does not write: B's value stays", async () => {
    const outcome = await runDriftScenario(sharedLab('drifting-clock'), () => undefined, 'database');
    const events = await listEvents({ lab: 'drifting-clock' });
    assert.equal(outcome.safe, true, outcome.verdict);
    const started = events.find((e) => e.actor === 'A' && e.kind === 'worker_started') as LabEvent;
    assert.equal(started.detail?.leaseClock, 'database', "A's setting is in its start event");
    // Nothing of A's sent on its lease once the lease had ended by the database's clock, B's write or not.
    const grantA = events.find((e) => e.actor === 'A' && e.kind === 'lease_acquired') as LabEvent;
    const expiry = events.find((e) => e.kind === 'lease_expired' && e.token === grantA.token) as LabEvent;
    const endedAt = Date.parse(String(expiry.detail?.expiresAt));
    const sentA = events.filter((e) => e.actor === 'A' && e.kind === 'write_sent' && e.token === grantA.token);
    assert.ok(sentA.length > 0, 'A wrote while its lease ran');
    assert.deepEqual(
      sentA.filter((e) => e.at.getTime() >= endedAt).map((e) => e.detail?.value),
      [],
      "no write sent at or after the lease's end",
    );
    const lost = events.find((e) => e.actor === 'A' && e.kind === 'lease_lost') as LabEvent;
    const reason = String(lost.detail?.reason);
    const [, reads, until] =
      reason.match(
        /^the database says my lease is over and B holds it now; my own clock reads (\S+Z) and says it runs until (\S+Z)$/,
      ) ?? [];
    assert.ok(reads && until, reason);
    assert.ok(Date.parse(reads) < Date.parse(until), 'by its own clock the lease still ran');
    assert.deepEqual(
      outcome.lines.filter((l) => l.step === 'violation'),
      [],
      'the checker finds nothing wrong, in a lab without fencing',
    );
    assert.match(outcome.verdict, /^safe \(the checker\): no violation in /);
  });
});

describe('a delayed packet, with real processes and a real packet relay', SIDE_BY_SIDE, () => {
  for (const lab of ['delayed-packet', 'delayed-packet-unfenced'] as const) {
    test(`${lab}: nothing freezes; A's write, held on the wire past its lease, arrives after B's`, async () => {
      const outcome = await runDelayedPacketScenario(sharedLab(lab), () => undefined);
      const events = await listEvents({ lab });
      assert.ok(!events.some((e) => e.kind.startsWith('pause_')), 'nothing froze');
      const isOutcome = (e: LabEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';
      const expiry = events.find((e) => e.actor === 'A' && e.kind === 'lease_expired') as LabEvent;
      const writeB = events.find((e) => e.actor === 'B' && isOutcome(e)) as LabEvent;
      const lateA = events.find((e) => e.actor === 'A' && isOutcome(e) && e.id > writeB.id) as LabEvent;
      const sent = events
        .filter((e) => e.actor === 'A' && e.kind === 'write_sent' && e.id < lateA.id)
        .at(-1) as LabEvent;
      const expiresAt = Date.parse(String(expiry.detail?.expiresAt));
      assert.ok(sent.at.getTime() < expiresAt, 'A sent it while its lease still ran');
      // PostgreSQL ran it after the expiry and after B's write: by its own clock (receivedAt).
      assert.ok(Date.parse(String(lateA.detail?.receivedAt)) > expiresAt, 'PostgreSQL received it after the expiry');
      assert.ok(lateA.at.getTime() > writeB.at.getTime());
      assert.equal(lateA.token, expiry.token, "with A's old token");
      assert.equal(lateA.detail?.value, sent.detail?.value, 'the very write A sent');
      const violations = brokenRules(outcome.lines);
      if (lab === 'delayed-packet') {
        assert.equal(outcome.safe, true, outcome.verdict);
        assert.deepEqual([lateA.kind, lateA.storedToken], ['write_rejected', writeB.token]);
        assert.deepEqual(violations, []);
      } else {
        assert.equal(outcome.safe, false);
        assert.equal(lateA.kind, 'write_accepted');
        assert.ok(violations.includes('token-went-back'), 'the checker names the lost update');
        // One lost update, one violation: the write after the expiry is one of its findings.
        const late = findingsOf(outcome.lines).find((f) => f.rule === 'write-after-expiry');
        assert.match(String(late?.message), /a stale write accepted after its lease expired \(sent at /);
        assert.match(
          outcome.verdict,
          /^UNSAFE \(A delayed packet, unfenced\) \(the checker\): 1 violation in \d+ writes and \d+ grants: lost update: B's value "B-1" \(token \d+\) overwritten by A with token \d+/,
        );
      }
    });
  }
});

type Line = { step: string; rule?: unknown; kinds?: unknown; findings?: unknown };
const violationLines = (lines: readonly Line[]) => lines.filter((line) => line.step === 'violation');

/** Every rule the checker's violations broke: each violation's own and the kinds listed inside it. */
function brokenRules(lines: readonly Line[]): string[] {
  return violationLines(lines).flatMap((line) => [String(line.rule), ...((line.kinds as string[] | undefined) ?? [])]);
}

function findingsOf(lines: readonly Line[]): Array<{ rule: string; message: string }> {
  return violationLines(lines).flatMap((line) => (line.findings as Array<{ rule: string; message: string }>) ?? []);
}

function pauseEndedBelief(events: LabEvent[]): unknown {
  return events.find((e) => e.actor === 'A' && e.kind === 'pause_ended')?.detail?.belief;
}
