import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../../testing/histories';
import { checkHistory } from '../checker/checker';
import type { WireEvent } from '../core/wire';
import { buildTimeline } from '../timeline/timeline';
import { describeTimeline, layoutTimeline, markLabel, SCREEN_METRICS } from '../timeline/timeline-layout';
import { failoverEvent, failoverStepsOf } from './failover-events';
import type { FailoverStep } from './failover-steps';

/*
 * The failover story as the lab's events: the one checker names its violations, the one timeline
 * draws A, B and C as lanes and the cluster's steps as lab-wide marks, and the events tell the
 * story back (the walkthrough's progress).
 */

const grant = (holder: string, token: string, server: 'primary' | 'promoted standby' = 'primary'): FailoverStep => ({
  kind: 'grant',
  holder,
  resource: 'lab/failover',
  token,
  server,
});
const write = (
  holder: string,
  token: string,
  value: string,
  accepted: boolean,
  server: 'primary' | 'promoted standby' = 'primary',
): FailoverStep =>
  accepted
    ? { kind: 'write', holder, token, value, server, accepted }
    : { kind: 'write', holder, token, value, server, accepted, rowToken: '2' };
const promoted = (value: string, lastToken: string, holder: string, token: string): FailoverStep => ({
  kind: 'standby_promoted',
  row: { value, lastToken },
  lease: { resource: 'lab/failover', holder, token },
});

/** The steps as stored events: ids in order, a second apart. */
function eventsOf(steps: FailoverStep[]): WireEvent[] {
  return steps.map((step, i) => {
    const { token, storedToken, detail, ...rest } = failoverEvent(step);
    return {
      ...rest,
      id: i + 1,
      at: Date.UTC(2026, 11, 1, 10) + 1_000 * i,
      detail: detail ?? {},
      ...(token === undefined ? {} : { token }),
      ...(storedToken === undefined ? {} : { storedToken }),
    };
  });
}

const ASYNC: FailoverStep[] = [
  { kind: 'pair_started', mode: 'async' },
  grant('A', '1'),
  write('A', '1', 'A-1', true),
  { kind: 'replication_cut', sequence: { primaryLastValue: '1', primaryLogCount: 32 } },
  grant('B', '2'),
  write('B', '2', 'B-1', true),
  { kind: 'primary_killed', sequence: { primaryLastValue: '2', standbyCeiling: '33' } },
  promoted('A-1', '1', 'A', '1'),
  write('A', '1', 'A-2', true, 'promoted standby'),
  grant('C', '2', 'promoted standby'),
];

test('the asynchronous loss: the one checker names each violation, with the holders, values and tokens', () => {
  const { violations } = checkHistory(eventsOf(ASYNC));
  // B's lost write and A's stale write it let through are one lost update, its two kinds inside it.
  assert.deepEqual(
    violations.map((v) => v.kinds),
    [['acknowledged-write-lost', 'stale-write-accepted'], ['acknowledged-write-lost'], ['token-granted-twice']],
  );
  const words = violations.flatMap((v) => v.findings.map((f) => f.message)).join('\n');
  assert.match(
    words,
    /acknowledged write lost: B's write "B-1" \(token 2\), acknowledged at 10:00:05.000, is not on the promoted standby: its row holds "A-1" with token 1/,
  );
  assert.match(words, /acknowledged grant lost: B's lease of lab\/failover \(token 2\).*its lease is A's, token 1/);
  assert.match(
    words,
    /stale write accepted: A wrote "A-2" with token 1 .* after B's write "B-1" with the newer token 2/,
  );
  assert.match(words, /token 2 granted twice: to B at 10:00:04.000 and to C at 10:00:09.000/);
  // A's late write is named once, as what it is: not also an overwrite, a superseded holder or a late write.
  assert.equal(violations.filter((v) => v.eventIds.includes(9)).length, 1);
});

test('the synchronous story: nothing to name', () => {
  const steps: FailoverStep[] = [
    { kind: 'pair_started', mode: 'sync' },
    grant('A', '1'),
    write('A', '1', 'A-1', true),
    { kind: 'replication_cut' },
    { kind: 'grant_waiting', holder: 'B', waitedMs: 1500 },
    { kind: 'replication_healed' },
    grant('B', '2'),
    write('B', '2', 'B-1', true),
    { kind: 'primary_killed' },
    promoted('B-1', '2', 'B', '2'),
    write('A', '1', 'A-2', false, 'promoted standby'),
    grant('C', '34', 'promoted standby'),
  ];
  assert.deepEqual(checkHistory(eventsOf(steps)).violations, []);
  assert.deepEqual(
    failoverStepsOf(eventsOf(steps)).map((s) => s.kind),
    steps.map((s) => s.kind),
    'the events tell the story back',
  );
});

test('each step’s details read back from its event as they were recorded: a grant’s expiry, the explorer’s catch-up and promotion', () => {
  const steps: FailoverStep[] = [
    {
      kind: 'grant',
      holder: 'A',
      resource: 'lab/failover',
      token: '1',
      server: 'primary',
      expiresAt: '2026-12-01T10:00:01.800Z',
    },
    { kind: 'replication_healed' },
    { kind: 'replication_healed', caughtUp: { grants: 1, writes: 2, standbyCeiling: '33' } },
    {
      kind: 'standby_promoted',
      row: { value: 'A-1', lastToken: '1' },
      lease: { resource: 'lab/failover', holder: 'A', token: '1' },
      sequence: { primaryLastValue: '2', standbyCeiling: '0' },
    },
  ];
  assert.deepEqual(failoverStepsOf(eventsOf(steps)), steps);
  // A BIGINT as pg hands it over (text) reads back as its digits, however large; anything else is not recorded.
  const healed = (detail: Record<string, unknown>): WireEvent => ({
    id: 1,
    lab: 'failover',
    at: 0,
    actor: 'cluster',
    kind: 'replication_healed',
    detail,
  });
  assert.deepEqual(
    failoverStepsOf([healed({ caughtUp: true, grants: 1, writes: 0, standbyCeiling: '9007199254740995' })]),
    [{ kind: 'replication_healed', caughtUp: { grants: 1, writes: 0, standbyCeiling: '9007199254740995' } }],
  );
  assert.deepEqual(failoverStepsOf([healed({ caughtUp: true, standbyCeiling: 1.5 })]), [
    { kind: 'replication_healed', caughtUp: { grants: 0, writes: 0 } },
  ]);
});

test('the timeline: the holders as lanes, the cluster’s steps as lab-wide marks, the row gone back at the promotion', () => {
  const events = eventsOf(ASYNC);
  const timeline = buildTimeline(events, events.at(-1)?.at ?? 0);
  assert.deepEqual(
    timeline.lanes.map((lane) => lane.holder),
    ['A', 'B', 'C'],
  );
  assert.deepEqual(
    timeline.labMarks.map((m) => m.kind),
    ['pair_started', 'replication_cut', 'primary_killed', 'standby_promoted'],
  );
  assert.deepEqual(
    timeline.row.map((c) => [c.value, c.token]),
    [
      ['A-1', 1],
      ['B-1', 2],
      ['A-1', 1],
      ['A-2', 1],
    ],
  );
  const flagged = new Set(checkHistory(events).violations.flatMap((v) => v.eventIds));
  const names = describeTimeline(timeline, flagged).map(markLabel);
  assert.ok(
    names.includes(
      `Violation: B's write "B-1" with token 2: accepted. decided at 10:00:05.000 (database time). UPDATE … RETURNING last_token: 1 row, the row now holds this token. write path: on the primary`,
    ),
  );
  assert.ok(names.some((n) => n.startsWith(`Violation: A's write "A-2" with token 1: accepted.`)));
  assert.ok(
    names.some((n) => n.startsWith('Replication to the standby cut. at 10:00:03.000 (database time). the proxy')),
  );
  assert.ok(
    names.some((n) => n.includes('the token went back from 2 to 1: an acknowledged write lost in the failover')),
  );

  // The one layout draws each step as a line across the lanes, with its words, in the list's order.
  const layout = layoutTimeline(timeline, {
    from: timeline.from,
    to: timeline.to,
    width: 1600,
    metrics: SCREEN_METRICS,
    origin: timeline.from,
    until: timeline.to,
    flagged,
  });
  const steps = layout.marks.filter((m) => m.kind === 'lab');
  assert.equal(steps.length, 4);
  const line = steps[1]?.shapes.find((s) => s.type === 'line');
  assert.ok(line && line.type === 'line' && line.y1 === SCREEN_METRICS.axisH && line.y2 === layout.height);
  assert.ok(steps[1]?.shapes.some((s) => s.type === 'text' && s.role === 'step-label' && s.text === 'replication cut'));
});

test('a history recorded from a real asynchronous run with 40 grants past the cut: every violation named, once', () => {
  const events = recorded('failover');
  const kinds = checkHistory(events).violations.map((v) => v.kinds.join(' + '));
  assert.deepEqual(kinds.toSorted(), [
    'acknowledged-write-lost',
    'acknowledged-write-lost + stale-write-accepted',
    'token-granted-twice',
  ]);
  const timeline = buildTimeline(events, (events.at(-1)?.at ?? 0) + 500);
  assert.deepEqual(
    timeline.lanes.map((lane) => lane.holder),
    ['A', 'B', 'others', 'C'],
  );
  assert.equal(timeline.lanes.find((lane) => lane.holder === 'others')?.leases.length, 40);
});
