import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { labelWidth, type PlacedLabel, placeWriteLabels, runLabel, type WriteToLabel } from './timeline-write-labels';

/*
 * The placement of a lane's write labels, on random lanes (writes bunched as a broken lab's refusals
 * are, or spread out, at the projector's and the screen's sizes): no label overprints another label
 * or any write's mark, and every refusal is told, by its own label or in a run's.
 */

/** Random lanes per run: well under a second. */
const LANES = 5_000;

const writeArb = fc.record({
  gap: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 300 })),
  accepted: fc.boolean(),
  token: fc.integer({ min: 1, max: 120 }),
  storedToken: fc.integer({ min: 1, max: 12 }),
});

const laneArb = fc.record({
  writes: fc.array(writeArb, { maxLength: 40 }),
  // The screen's metrics and the projector's (lib/model/timeline/timeline-layout.ts).
  size: fc.constantFrom({ r: 9, px: 12 }, { r: 14, px: 20 }),
  nextGap: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
  /** How far the track's right edge is past the last write (often less than a label). */
  edgeGap: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
});

type LaneArb = typeof laneArb extends fc.Arbitrary<infer T> ? T : never;

function lane(arb: LaneArb) {
  let x = 200;
  const writes: WriteToLabel[] = arb.writes.map((w, i) => {
    x += w.gap;
    return {
      x,
      accepted: w.accepted,
      storedToken: w.accepted ? undefined : w.storedToken,
      label: w.accepted ? `B-${i + 1} · ${w.token}` : `${w.token} vs ${w.storedToken}`,
    };
  });
  const nextX = arb.nextGap === undefined ? undefined : x + arb.nextGap;
  const right = arb.edgeGap === undefined ? undefined : x + arb.edgeGap;
  return { writes, geometry: { ...arb.size, gap: 3, nextX, left: 100, right } };
}

const overlap = (a: [number, number], b: [number, number]) => a[0] < b[1] && b[0] < a[1];
const span = (label: PlacedLabel): [number, number] => [label.x, label.x + label.width];

test('no write label overprints another label or a write, and every refusal is told', () => {
  fc.assert(
    fc.property(laneArb, (arb) => {
      const { writes, geometry } = lane(arb);
      const placed = placeWriteLabels(writes, geometry);
      placed.forEach((label, i) => {
        for (const other of placed.slice(i + 1)) assert.ok(!overlap(span(label), span(other)), 'two labels overlap');
        for (const write of writes) {
          const mark: [number, number] = [write.x - geometry.r, write.x + geometry.r];
          assert.ok(!overlap(span(label), mark), `"${label.text}" overprints the write at ${write.x}`);
        }
        // Only the lane's last label may reach the write beyond the window (off the track, not drawn).
        if (geometry.nextX !== undefined && label.last < writes.length - 1)
          assert.ok(label.x + label.width <= geometry.nextX - geometry.r);
        // Nothing left of the track; past its right edge only the lane's last label, with no room left of it.
        assert.ok(label.x >= geometry.left, `"${label.text}" starts left of the track`);
        if (geometry.right !== undefined && label.x + label.width > geometry.right) {
          assert.equal(i, placed.length - 1, `"${label.text}" is cut at the edge but is not the last label`);
          assert.ok(label.x > (writes[label.last]?.x ?? 0), 'a label cut at the edge though it sits left of its write');
          const before = placed[i - 1];
          const clear = Math.max(
            geometry.left,
            before ? before.x + before.width + geometry.gap : Number.NEGATIVE_INFINITY,
            label.first > 0 ? (writes[label.first - 1]?.x ?? 0) + geometry.r + geometry.gap : Number.NEGATIVE_INFINITY,
          );
          const room = (writes[label.first]?.x ?? 0) - geometry.r - geometry.gap - clear;
          assert.ok(room < label.width, `"${label.text}" is cut at the edge with ${room} px free left of it`);
        }
      });
      writes.forEach((write, i) => {
        const telling = placed.filter((label) => label.first <= i && i <= label.last);
        assert.ok(telling.length <= 1, 'a write told twice');
        if (!write.accepted) assert.equal(telling.length, 1, `the refusal at ${write.x} is told`);
        const own = telling[0];
        if (own && own.first === own.last) assert.equal(own.text, write.label);
      });
    }),
    { numRuns: LANES },
  );
});

test('a lane with room labels every write with its own words, as before', () => {
  const writes = [0, 1, 2].map((i) => ({ x: 200 + i * 300, accepted: i !== 1, storedToken: 9, label: `w${i}` }));
  const placed = placeWriteLabels(writes, { r: 14, px: 20, gap: 3 });
  assert.deepEqual(
    placed.map((p) => [p.text, p.x]),
    [
      ['w0', 217],
      ['w1', 517],
      ['w2', 817],
    ],
  );
});

test("token-as-text's bunched refusals are told in one label after the last of them", () => {
  const writes = [10, 11, 12, 13, 14].map((token, i) => ({
    x: 200 + i * 20,
    accepted: false,
    storedToken: 9,
    label: `${token} vs 9`,
  }));
  const placed = placeWriteLabels(writes, { r: 14, px: 20, gap: 3 });
  assert.deepEqual(
    placed.map((p) => [p.text, p.first, p.last]),
    [['✗×5 vs 9', 0, 4]],
  );
  assert.equal(
    runLabel([...writes.slice(0, 2), { x: 0, accepted: true, label: '', storedToken: undefined }]),
    '✗×2 vs 9 ✓×1',
  );
  assert.ok(labelWidth('✗×5 vs 9', 20) > labelWidth('x×5 vs 9', 20), 'a symbol is wider than a letter');
});

test("the last write's label at the track's right edge goes left of its mark, whole", () => {
  // A counterexample fitted to its span: the deciding write is the last event, 30 px from the edge.
  const writes = [
    { x: 300, accepted: true, label: 'A-1 · 3' },
    { x: 970, accepted: false, storedToken: 5, label: 'A-2 · 3 vs 5' },
  ];
  const placed = placeWriteLabels(writes, { r: 9, px: 12, gap: 3, left: 100, right: 1000 });
  const deciding = placed.find((p) => p.last === 1);
  assert.ok(deciding, 'the deciding write is labelled');
  assert.ok(deciding.x + deciding.width <= 970 - 9, 'it ends before its mark');
  assert.ok(deciding.x >= 300 + 9, 'and after the write before it');
  // Without the edge, as before: right of the mark (the painter cuts it).
  const unbounded = placeWriteLabels(writes, { r: 9, px: 12, gap: 3 });
  assert.equal(unbounded.find((p) => p.last === 1)?.x, 970 + 9 + 3);
});
