import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import { buildTimeline, createTimelineBuilder, type Timeline } from './timeline';

const laneOf = (timeline: ReturnType<typeof buildTimeline>, holder: string) => {
  const lane = timeline.lanes.find((l) => l.holder === holder);
  assert.ok(lane, `a lane for ${holder}`);
  return lane;
};

describe('the timeline of a recorded fenced pause', () => {
  const events = recorded('fenced');
  const end = (events.at(-1)?.at ?? 0) + 100;
  const timeline = buildTimeline(events, end);
  const a = laneOf(timeline, 'A');
  const b = laneOf(timeline, 'B');

  test('one lane per holder, in order of appearance', () => {
    assert.deepEqual(
      timeline.lanes.map((l) => l.holder),
      ['A', 'B'],
    );
  });

  test("A's lease bar ends where it expired by database time, B's newer one starts after it", () => {
    const [barA] = a.leases;
    const [barB] = b.leases;
    assert.ok(barA && barB);
    assert.equal(barA.end, 'expired');
    assert.ok(barB.token > barA.token);
    assert.ok(barB.from >= barA.to, 'no overlap between the two leases');
    assert.ok(barB.renewals >= 1);
  });

  test('A believed it held its token from the expiry until its write was rejected', () => {
    const [belief] = a.beliefs;
    assert.ok(belief);
    assert.equal(belief.token, a.leases[0]?.token);
    assert.equal(belief.from, a.leases[0]?.to);
    assert.equal(belief.to, a.losses[0]?.at);
    assert.match(belief.reason ?? '', /rejected/);
    assert.deepEqual(b.beliefs, [], 'B never believed anything false');
  });

  test('the freeze is one closed block of about 3 s in the critical window', () => {
    const [pause] = a.pauses;
    assert.ok(pause);
    assert.equal(pause.open, false);
    assert.equal(pause.trigger, 'critical-window');
    assert.ok(Math.abs(pause.to - pause.from - 3_000) < 200);
  });

  test('writes: A accepted then rejected with both tokens, B accepted; the row shows only accepted writes', () => {
    assert.deepEqual(
      a.writes.map((w) => [w.value, w.outcome]),
      [
        ['A-1', 'accepted'],
        ['A-2', 'rejected'],
      ],
    );
    const rejected = a.writes[1];
    assert.equal(rejected?.token, a.leases[0]?.token);
    assert.equal(rejected?.storedToken, b.leases[0]?.token);
    assert.ok((rejected?.sentAt ?? 0) >= (a.pauses[0]?.to ?? Number.POSITIVE_INFINITY), 'sent after waking');
    assert.deepEqual(
      timeline.row.map((r) => [r.by, r.value]),
      [
        ['A', 'A-1'],
        ['B', 'B-1'],
      ],
    );
  });

  test('the same history built twice, or from a copy, gives the same timeline (no hidden state)', () => {
    assert.deepEqual(buildTimeline(structuredClone(events), end), timeline);
  });
});

describe('the timeline of recorded broken labs', () => {
  test('no fencing: the row lane shows B overwritten by A with an older token', () => {
    const events = recorded('no-fencing');
    const timeline = buildTimeline(events, (events.at(-1)?.at ?? 0) + 100);
    const last = timeline.row.at(-1);
    const beforeLast = timeline.row.at(-2);
    assert.equal(last?.by, 'A');
    assert.equal(beforeLast?.by, 'B');
    assert.ok((last?.token ?? 0) < (beforeLast?.token ?? 0), 'the token went back: a lost update');
  });

  test("token as text: B's newer write is the rejected one", () => {
    const events = recorded('token-as-text');
    const timeline = buildTimeline(events, (events.at(-1)?.at ?? 0) + 100);
    const b = laneOf(timeline, 'B');
    const first = b.writes[0];
    assert.deepEqual([first?.token, first?.outcome, first?.storedToken], [10, 'rejected', 9]);
    assert.ok(
      b.writes.every((w) => w.outcome === 'rejected'),
      'every newer write is rejected',
    );
  });
});

describe('hand-made histories', () => {
  const { at, ev } = handMade(1_000_000);
  const expires = (s: number) => ({ expiresAt: new Date(at(s)).toISOString() });

  test('a lease still held stays open; one past its expiry with nobody noticing is expired, and a belief runs to now', () => {
    const events = [ev(1, 0, 'A', 'lease_acquired', { token: 5, detail: expires(3) })];
    const during = buildTimeline(events, at(2));
    assert.equal(during.lanes[0]?.leases[0]?.end, 'held');
    assert.deepEqual(during.lanes[0]?.beliefs, []);
    const later = buildTimeline(events, at(5));
    assert.equal(later.lanes[0]?.leases[0]?.end, 'expired');
    assert.deepEqual(later.lanes[0]?.beliefs, [{ token: 5, from: at(3), to: at(5), open: true }]);
  });

  test('renewals extend the bar; a release ends it where it happened', () => {
    const timeline = buildTimeline(
      [
        ev(1, 0, 'A', 'lease_acquired', { token: 5, detail: expires(3) }),
        ev(2, 1, 'A', 'lease_renewed', { token: 5, detail: expires(4) }),
        ev(3, 2, 'A', 'lease_released', { token: 5 }),
      ],
      at(10),
    );
    assert.deepEqual(timeline.lanes[0]?.leases[0], {
      token: 5,
      from: at(0),
      to: at(2),
      end: 'released',
      renewals: 1,
      grantEventId: 1,
    });
    assert.deepEqual(timeline.lanes[0]?.beliefs, []);
  });

  test('a crash closes an open pause and the lease, and ends the belief', () => {
    const timeline = buildTimeline(
      [
        ev(1, 0, 'A', 'lease_acquired', { token: 5, detail: expires(1) }),
        ev(2, 0.5, 'A', 'pause_started', { detail: { trigger: 'now' } }),
        ev(3, 4, 'A', 'worker_crashed', { detail: { signal: 'SIGKILL' } }),
      ],
      at(10),
    );
    const lane = timeline.lanes[0];
    assert.deepEqual(
      lane?.pauses.map((p) => [p.from, p.to, p.open]),
      [[at(0.5), at(4), false]],
    );
    assert.deepEqual(
      lane?.beliefs.map((b) => [b.from, b.to, b.reason]),
      [[at(1), at(4), 'crashed']],
    );
    assert.deepEqual(
      lane?.life.map((l) => l.kind),
      ['crashed'],
    );
  });

  test('an empty log is an empty timeline at now', () => {
    assert.deepEqual(buildTimeline([], at(1)), {
      lanes: [],
      row: [],
      labMarks: [],
      from: at(1),
      to: at(1),
      lastEventId: 0,
    });
  });
});

describe('the timeline built as the log grows', () => {
  const histories = {
    fenced: recorded('fenced'),
    'no-fencing': recorded('no-fencing'),
    'token-as-text': recorded('token-as-text'),
  };

  test('folding the log in chunks, looking at it between them, gives what building at once gives', () => {
    for (const [name, events] of Object.entries(histories)) {
      for (const chunk of [1, 2, 3, 5, events.length]) {
        const builder = createTimelineBuilder();
        for (let i = 0; i < events.length; i += chunk) {
          const seen = events.slice(0, i + chunk);
          const now = (seen.at(-1)?.at ?? 0) + 50;
          builder.append(events.slice(i, i + chunk));
          assert.deepEqual(builder.at(now), buildTimeline(seen, now), `${name}, chunks of ${chunk}, after ${i}`);
        }
      }
    }
  });

  test('a timeline handed out does not change when more is folded in', () => {
    const events = histories.fenced;
    const builder = createTimelineBuilder();
    const handedOut = events.map((_, i) => {
      builder.sync(events.slice(0, i + 1));
      const timeline = builder.at((events[i]?.at ?? 0) + 10);
      return { timeline, copy: structuredClone(timeline) };
    });
    for (const { timeline, copy } of handedOut) assert.deepEqual(timeline, copy);
  });

  test('a lane with nothing new keeps its object; the open freeze is closed at each now', () => {
    const events = histories.fenced;
    const pauseStart = events.findIndex((e) => e.kind === 'pause_started');
    const builder = createTimelineBuilder();
    builder.append(events.slice(0, pauseStart + 1));
    const at = events[pauseStart]?.at ?? 0;
    const first = builder.at(at + 100);
    const second = builder.at(at + 200);
    const holder = events[pauseStart]?.actor;
    const frozen = (t: Timeline) => t.lanes.find((l) => l.holder === holder);
    assert.equal(frozen(second)?.pauses.at(-1)?.to, at + 200);
    assert.equal(frozen(first)?.pauses.at(-1)?.to, at + 100, 'the first one still ends where it was drawn');
    for (const lane of second.lanes) {
      if (lane.holder !== holder)
        assert.equal(
          lane,
          first.lanes.find((l) => l.holder === lane.holder),
        );
    }
    assert.equal(second.lanes.find((l) => l.holder === holder)?.writes, frozen(first)?.writes, 'lists are shared');
  });

  test('a log replaced, or an id not above the last one, starts over', () => {
    const fenced = histories.fenced;
    const other = histories['no-fencing'];
    const end = Math.max(fenced.at(-1)?.at ?? 0, other.at(-1)?.at ?? 0) + 100;
    const builder = createTimelineBuilder();
    builder.sync(fenced);
    builder.sync(other);
    assert.deepEqual(builder.at(end), buildTimeline(other, end));
    builder.append(fenced);
    assert.deepEqual(builder.at(end), buildTimeline(fenced, end));
  });
});
