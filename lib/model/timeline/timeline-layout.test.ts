import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import { buildTimeline, type RowChange, type Timeline } from './timeline';
import {
  describeTimeline,
  layoutTimeline,
  markLabel,
  PRESENTER_METRICS,
  SCREEN_METRICS,
  type Shape,
  type TimelineLayout,
  type TimelineMetrics,
} from './timeline-layout';
import { CHAR_EM } from './timeline-layout-marks';

function rowUntil(row: RowChange[], to: number): number {
  const after = row.findIndex((change) => change.at > to);
  return after === -1 ? row.length : after + 1;
}

/** The oracle: what overlaps [from, to], by a plain filter over everything (the layout finds it by binary search). */
function cullTimeline(timeline: Timeline, from: number, to: number): Timeline {
  const span = <T extends { from: number; to: number }>(items: T[]) =>
    items.filter((i) => i.to >= from && i.from <= to);
  const point = <T extends { at: number }>(items: T[]) => items.filter((i) => i.at >= from && i.at <= to);
  const rowFrom = timeline.row.findLastIndex((change) => change.at < from);
  return {
    ...timeline,
    lanes: timeline.lanes.map((lane) => ({
      holder: lane.holder,
      leases: span(lane.leases),
      beliefs: span(lane.beliefs),
      pauses: span(lane.pauses),
      writes: point(lane.writes),
      losses: point(lane.losses),
      life: point(lane.life),
    })),
    // The change in force at `from` stays, and the first one after `to`: a change is drawn (and
    // described) up to the next one, which may lie outside the stretch.
    row: timeline.row.slice(Math.max(0, rowFrom), rowUntil(timeline.row, to)),
  };
}

const events = recorded('fenced');
const end = (events.at(-1)?.at ?? 0) + 500;
const timeline = buildTimeline(events, end);
const none: ReadonlySet<number> = new Set();

const layout = (
  t: Timeline,
  extra: Partial<Parameters<typeof layoutTimeline>[1]> & { metrics?: TimelineMetrics } = {},
): TimelineLayout =>
  layoutTimeline(t, {
    from: t.from,
    to: t.to,
    width: 1280,
    metrics: SCREEN_METRICS,
    origin: t.from,
    until: t.to,
    flagged: none,
    ...extra,
  });

const texts = (l: TimelineLayout) =>
  [...l.lanes.map((lane) => lane.nameShape), ...l.decor, ...l.marks.flatMap((m) => m.shapes)].filter(
    (s): s is Extract<Shape, { type: 'text' }> => s.type === 'text',
  );
const textsOf = (l: TimelineLayout, role: string) => texts(l).filter((s) => s.role === role);

describe('the layout of a recorded fenced pause, on screen', () => {
  const drawn = layout(timeline);

  test('one lane per holder, then the database, each named on the left at 18 px bold', () => {
    assert.deepEqual(
      drawn.lanes.map((l) => l.name),
      ['A', 'B', 'database'],
    );
    assert.deepEqual(
      textsOf(drawn, 'lane-name').map((t) => [t.text, t.px, t.weight]),
      [
        ['A', 18, 700],
        ['B', 18, 700],
        ['database', 18, 700],
      ],
    );
    assert.equal(drawn.lanes[1]?.top, SCREEN_METRICS.axisH + SCREEN_METRICS.laneH);
    assert.equal(drawn.height, SCREEN_METRICS.axisH + 2 * SCREEN_METRICS.laneH + SCREEN_METRICS.rowLaneH);
  });

  test('the whole window lays out every mark, with the words describeTimeline gives', () => {
    const words = describeTimeline(timeline, none);
    assert.deepEqual(drawn.marks.map((m) => m.key).sort(), words.map((m) => m.key).sort());
    for (const mark of drawn.marks) {
      const { box: _box, shapes: _shapes, ...text } = mark;
      assert.deepEqual(
        text,
        words.find((w) => w.key === mark.key),
      );
    }
  });

  test("a mark's label: its title and lines in one line, Violation: first when the checker named it", () => {
    const write = drawn.marks.find((m) => m.title === `A's write "A-1" with token 62: accepted`);
    assert.ok(write);
    assert.match(markLabel(write), /^A's write "A-1" with token 62: accepted\. sent at [\d:.]+, decided at/);
    assert.match(markLabel({ ...write, flagged: true }), /^Violation: A's write/);
  });

  test('the screen wording: writes, the row, the belief, each key as before', () => {
    const titles = drawn.marks.map((m) => m.title);
    assert.ok(titles.includes(`A's write "A-1" with token 62: accepted`));
    assert.ok(titles.includes(`A's write "A-2" with token 62: rejected as stale`));
    assert.ok(titles.includes(`The row holds "B-1" with token 63`));
    assert.ok(titles.includes('A believes it holds token 62, but its lease ran out'));
    const keys = drawn.marks.map((m) => m.key);
    assert.ok(keys.some((k) => /^lease:A:\d+$/.test(k)));
    assert.ok(keys.some((k) => /^belief:A:62:\d+$/.test(k)));
    assert.ok(keys.some((k) => /^pause:\d+$/.test(k)));
    assert.ok(keys.some((k) => /^write:\d+$/.test(k)));
    assert.ok(keys.some((k) => /^row:\d+$/.test(k)));
  });

  test('bars carry their token, writes their label, the row its value', () => {
    const tokens = textsOf(drawn, 'token').map((t) => t.text);
    assert.ok(tokens.includes('token 62'));
    assert.ok(tokens.includes('token 63'));
    assert.ok(textsOf(drawn, 'write-label').some((t) => t.text === '62 vs 63'));
    assert.ok(textsOf(drawn, 'row-label').some((t) => t.text === 'B-1 · token 63'));
    const belief = drawn.marks.find((m) => m.kind === 'belief');
    assert.deepEqual(
      belief?.shapes.filter((s) => s.type === 'rect').map((s) => s.type === 'rect' && [s.fill, s.dashed]),
      [['hatch-belief', true]],
    );
    const pause = drawn.marks.find((m) => m.kind === 'pause');
    assert.ok(pause?.shapes.some((s) => s.type === 'rect' && s.fill === 'hatch-pause'));
  });

  test('every mark is drawn inside its lane, on the track, and its box holds its shapes', () => {
    for (const mark of drawn.marks) {
      const lane = drawn.lanes.find((l) => l.name === mark.lane);
      assert.ok(lane);
      assert.ok(mark.box.y >= lane.top && mark.box.y + mark.box.h <= lane.top + lane.height, mark.key);
      assert.ok(mark.box.x >= SCREEN_METRICS.labelW - SCREEN_METRICS.writeR, mark.key);
    }
  });

  test("the axis reads the database's clock at round times, whatever the origin", () => {
    const axis = textsOf(drawn, 'axis').map((t) => t.text);
    assert.ok(axis.length >= 2 && axis.length <= 11, axis.join(' '));
    for (const label of axis) assert.match(label, /^\d\d:\d\d:\d\d(\.\d\d\d)?$/);
    const later = layout(timeline, { origin: timeline.from - 12_000 });
    assert.deepEqual(
      textsOf(later, 'axis').map((t) => t.text),
      axis,
    );
  });
});

describe('only what overlaps the window', () => {
  test('a stretch inside the freeze: the freeze and the leases, no write, the row value in force', () => {
    const pause = timeline.lanes[0]?.pauses[0];
    assert.ok(pause);
    const drawn = layout(timeline, { from: pause.from + 1_000, to: pause.from + 1_200, width: 800 });
    const kinds = drawn.marks.map((m) => m.kind);
    assert.ok(!kinds.includes('write-accepted') && !kinds.includes('write-rejected'));
    assert.equal(kinds.filter((k) => k === 'pause').length, 1);
    assert.ok(drawn.marks.some((m) => m.kind === 'row' && m.title.includes('"A-1"')));
    for (const mark of drawn.marks) {
      for (const shape of mark.shapes) {
        if (shape.type === 'rect') assert.ok(shape.x >= SCREEN_METRICS.labelW && shape.x + shape.w <= 800, mark.key);
      }
    }
  });

  test('the marks of any window are those cullTimeline keeps (binary search agrees with a filter)', () => {
    const span = timeline.to - timeline.from;
    for (let i = 0; i <= 40; i++) {
      const from = timeline.from - 1_000 + (span * i) / 37;
      for (const width of [200, 1_500, 6_000]) {
        const to = from + width;
        const culled = cullTimeline(timeline, from, to);
        const expected = describeTimeline({ ...culled, row: [] }, none).map((m) => m.key);
        const got = layout(timeline, { from, to })
          .marks.filter((m) => m.kind !== 'row')
          .map((m) => m.key);
        assert.deepEqual(got.sort(), expected.sort(), `window ${i} of ${width} ms`);
      }
    }
  });
});

test('a span that outlasts a later one of its lane is still found (a crashed lease, then a new grant)', () => {
  const { at, ev } = handMade(Date.UTC(2026, 0, 1, 12, 0, 0));
  const expires = (s: number) => ({ expiresAt: new Date(at(s)).toISOString() });
  const crashed = buildTimeline(
    [
      ev(1, 0, 'A', 'lease_acquired', { token: 5, detail: expires(10) }),
      ev(2, 1, 'A', 'worker_crashed'),
      ev(3, 1.5, 'A', 'worker_restarted'),
      ev(4, 2, 'A', 'lease_acquired', { token: 6, detail: expires(3) }),
      ev(5, 2.5, 'A', 'lease_released', { token: 6 }),
    ],
    at(12),
  );
  const drawn = layout(crashed, { from: at(5), to: at(6) });
  assert.deepEqual(
    drawn.marks.filter((m) => m.kind === 'lease').map((m) => m.key),
    ['lease:A:1'],
  );
});

describe('labels that make room', () => {
  const { at, ev } = handMade(Date.UTC(2026, 0, 1, 12, 0, 0));
  const writes = buildTimeline(
    [
      ev(1, 0, 'A', 'lease_acquired', { token: 7, detail: { expiresAt: new Date(at(20)).toISOString() } }),
      ev(2, 1, 'A', 'write_accepted', { token: 7, detail: { value: 'a-1' } }),
      ev(3, 1.05, 'A', 'write_accepted', { token: 7, detail: { value: 'a-2' } }),
      ev(4, 1.1, 'A', 'write_rejected', { token: 6, storedToken: 7, detail: { value: 'a-3' } }),
      ev(5, 1.12, 'A', 'write_rejected', { token: 6, storedToken: 7, detail: { value: 'a-4' } }),
    ],
    at(11),
  );

  test('an accepted label only where it does not run into the next write; rejections too close for theirs are told in one', () => {
    const labels = textsOf(layout(writes), 'write-label').map((t) => t.text);
    assert.deepEqual(labels, ['✗×2 vs 7']);
    const zoomed = layout(writes, { from: at(0.9), to: at(1.2) });
    assert.deepEqual(
      textsOf(zoomed, 'write-label').map((t) => t.text),
      ['a-1 · 7', 'a-2 · 7', '6 vs 7', '6 vs 7'],
    );
  });

  test("the last write's label at the window's right edge is drawn whole, left of its mark (a fitted counterexample)", () => {
    const deciding = buildTimeline(
      [
        ev(1, 0, 'A', 'lease_acquired', { token: 7, detail: { expiresAt: new Date(at(20)).toISOString() } }),
        ev(2, 0.5, 'A', 'write_accepted', { token: 7, detail: { value: 'a-1' } }),
        ev(3, 1.12, 'A', 'write_rejected', { token: 6, storedToken: 7, detail: { value: 'a-2' } }),
      ],
      at(11),
    );
    // The window ends 30 px after the rejected a-2: right of it, its label would be cut.
    const width = 1280;
    const pxPerMs = (width - SCREEN_METRICS.labelW) / 1_200;
    const edge = layout(deciding, { from: at(0), to: at(1.12) + 30 / pxPerMs, width });
    const label = textsOf(edge, 'write-label').at(-1);
    assert.equal(label?.text, '6 vs 7');
    assert.ok(label && label.x + label.text.length * CHAR_EM * label.px <= width, 'it ends on the track');
    const mark = edge.marks.find((m) => m.shapes.includes(label));
    assert.ok(
      mark && mark.box.x <= label.x && label.x < mark.box.x + mark.box.w,
      "left of its mark, in the mark's box",
    );
  });

  test('a narrow bar shortens its label, a narrower one drops it', () => {
    const wide = layout(writes);
    assert.deepEqual(
      textsOf(wide, 'token').map((t) => t.text),
      ['token 7'],
    );
    const narrow = layout(writes, { from: at(0), to: at(600) });
    assert.deepEqual(
      textsOf(narrow, 'token').map((t) => t.text),
      ['7'],
    );
    const narrower = layout(writes, { from: at(0), to: at(6_000) });
    assert.deepEqual(
      textsOf(narrower, 'token').map((t) => t.text),
      [],
    );
  });

  test('a mark the checker flagged says so and wears a ⚠', () => {
    const drawn = layout(writes, { flagged: new Set([4]) });
    const flagged = drawn.marks.filter((m) => m.flagged);
    assert.deepEqual(
      flagged.map((m) => m.key),
      ['write:4'],
    );
    assert.ok(flagged[0]?.shapes.some((s) => s.type === 'text' && s.text === '⚠' && s.fill === 'flag'));
  });

  test('a long lane name is cut to fit the names column', () => {
    const long = buildTimeline([ev(1, 0, 'a-very-long-holder-name-indeed', 'worker_started')], at(2));
    const [name] = textsOf(layout(long), 'lane-name');
    assert.ok(name?.text.endsWith('…'));
    assert.ok((name?.text.length ?? 99) * 0.55 * 18 <= SCREEN_METRICS.labelW);
  });
});

describe('presenter metrics', () => {
  const drawn = layout(timeline, { metrics: PRESENTER_METRICS, from: timeline.from, to: timeline.from + 8_000 });

  test('lane names, tokens and write labels are 20 px or more, and fit in their lanes', () => {
    const read = texts(drawn).filter((t) => ['lane-name', 'token', 'write-label', 'row-label'].includes(t.role));
    assert.ok(read.length > 6);
    for (const t of read) assert.ok(t.px >= 20, `${t.text} at ${t.px} px`);
    for (const mark of drawn.marks) {
      const lane = drawn.lanes.find((l) => l.name === mark.lane);
      assert.ok(lane);
      for (const shape of mark.shapes) {
        if (shape.type !== 'text' || shape.role === 'flag') continue;
        assert.ok(shape.y - shape.px * 0.8 >= lane.top && shape.y <= lane.top + lane.height, `${shape.text}`);
      }
    }
  });

  test('laneRange lays out the marks of those lanes only, and the database lane', () => {
    const onlyB = layout(timeline, { laneRange: [1, 5] });
    assert.deepEqual([...new Set(onlyB.marks.map((m) => m.lane))], ['B', 'database']);
    assert.equal(onlyB.lanes.length, 3, 'every lane keeps its name');
  });

  test('a window with fewer holders than minLanes keeps room for the empty lanes', () => {
    const wide = layout(timeline, { minLanes: 4 });
    assert.equal(wide.lanes.at(-1)?.top, SCREEN_METRICS.axisH + 4 * SCREEN_METRICS.laneH);
  });
});

test('describeTimeline: lane by lane, by time within a lane, then the row', () => {
  const words = describeTimeline(timeline, none);
  const lanes = words.map((m) => m.lane);
  assert.deepEqual([...new Set(lanes)], ['A', 'B', 'database']);
  for (const lane of ['A', 'B', 'database']) {
    const times = words.filter((m) => m.lane === lane).map((m) => m.at);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
    );
  }
});

test("axis labels never overlap, on a phone's narrow track as on a projector's (no '10:29:5610:29:58')", () => {
  const events = recorded('fenced');
  const timeline = buildTimeline(events, events.at(-1)?.at ?? 0);
  const origin = timeline.from;
  for (const metrics of [SCREEN_METRICS, PRESENTER_METRICS]) {
    for (const width of [244, 356, 800, 1248]) {
      for (const [from, to] of [
        [origin + 86_000, origin + 100_000],
        [origin, origin + 14_000],
        [origin + 1_000, origin + 3_000],
      ] as const) {
        const axis = layoutTimeline(timeline, { from, to, width, metrics, origin, until: to, flagged: new Set() })
          .decor.filter((shape): shape is Extract<Shape, { type: 'text' }> => shape.type === 'text')
          .toSorted((a, b) => a.x - b.x);
        assert.ok(axis.length >= 1, `at least one tick at ${width} px`);
        for (let i = 1; i < axis.length; i++) {
          const [a, b] = [axis[i - 1], axis[i]];
          if (!a || !b) continue;
          // Centred labels: half of each, at the layout's estimate of a character's width.
          const room = (a.text.length + b.text.length) * CHAR_EM * metrics.labelPx * 0.5;
          assert.ok(b.x - a.x >= room, `"${a.text}" and "${b.text}" overlap at ${width} px (${metrics.labelPx} px)`);
        }
      }
    }
  }
});
