import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyRun } from './sweep-cell';
import { parseNumberList, readNumberList, sweepGridSchema, sweepInput, sweepRuns, sweepWorkers } from './sweep-grid';
import { cellKey, layoutHeatmap } from './sweep-heatmap';
import { sweepSvg } from './sweep-svg';
import { sweepProgressText } from './sweep-view';

type E = {
  id: number;
  kind: string;
  actor: string;
  lab: string;
  token?: number;
  rowId?: number;
  detail: Record<string, unknown>;
};
let nextId = 0;
const ev = (actor: string, kind: string, token?: number): E => ({
  id: ++nextId,
  kind,
  actor,
  lab: 'p-0123456789',
  rowId: 7,
  detail: {},
  ...(token === undefined ? {} : { token }),
});

describe('the sweep grid', () => {
  test('expands pauses × TTLs × drifts into runs, each point without fencing then fenced, in ascending order', () => {
    const runs = sweepRuns({ pausesMs: [800, 200], ttlsMs: [1500, 500], driftsPercent: [0, 50] });
    assert.equal(runs.length, 16);
    assert.deepEqual(
      runs.slice(0, 4).map((r) => [r.point.pauseMs, r.point.ttlMs, r.fencing, r.kind]),
      [
        [200, 500, 'unfenced', 'no-fencing'],
        [200, 500, 'fenced', 'fenced'],
        [800, 500, 'unfenced', 'no-fencing'],
        [800, 500, 'fenced', 'fenced'],
      ],
    );
    const drifting = runs.filter((r) => r.point.driftPercent === 50).map((r) => r.kind);
    assert.deepEqual([...new Set(drifting)], ['drifting-clock', 'drifting-clock-fenced']);
    assert.deepEqual(
      runs.map((r) => r.index),
      runs.map((_, i) => i),
    );
  });

  test('refuses a grid past its limits, with the reason', () => {
    const refusal = (raw: unknown) => {
      const parsed = sweepGridSchema.safeParse(raw);
      return parsed.success ? undefined : parsed.error.issues[0]?.message;
    };
    assert.equal(refusal({ pausesMs: [200], ttlsMs: [500] }), undefined);
    assert.match(String(refusal({ pausesMs: [50], ttlsMs: [500] })), /at least 100 ms/);
    assert.match(String(refusal({ pausesMs: [200], ttlsMs: [400] })), /at least 500 ms/);
    assert.match(String(refusal({ pausesMs: [200, 200], ttlsMs: [500] })), /must not repeat/);
    assert.match(String(refusal({ pausesMs: [1, 2, 3, 4, 5, 6, 7].map((n) => n * 100), ttlsMs: [500] })), /at most 6/);
    assert.match(
      String(refusal({ pausesMs: [100, 200, 300, 400, 500], ttlsMs: [500, 600, 700, 800, 900] })),
      /at most 24 points/,
    );
    assert.match(String(refusal({ pausesMs: [200], ttlsMs: [500], driftsPercent: [95] })), /at most 90/);
    assert.match(String(refusal({ pausesMs: [200], ttlsMs: [500], sql: 'x' })), /nrecognized/);
    assert.equal(sweepInput.safeParse({ grid: { pausesMs: [200], ttlsMs: [500] }, concurrency: 3 }).success, false);
  });

  test('reads a typed list, and nothing that is not one', () => {
    assert.deepEqual(parseNumberList('200, 800 2000'), [200, 800, 2000]);
    assert.equal(parseNumberList('200, x'), undefined);
    assert.equal(parseNumberList(' '), undefined);
    assert.deepEqual(readNumberList('Pause lengths (ms)', '200 800'), { numbers: [200, 800] });
    assert.deepEqual(readNumberList('Pause lengths (ms)', '200, 8OO'), {
      error:
        'Pause lengths (ms): "8OO" is not a number; write whole numbers separated by commas, for example 200, 800, 2000',
    });
    assert.deepEqual(readNumberList('Lease TTLs (ms)', ' '), {
      error: 'Lease TTLs (ms): give at least one number, for example 200, 800, 2000',
    });
  });

  test('gives both workers the TTL, renewals three times and writes five times per TTL, a drift only in its labs', () => {
    const point = { pauseMs: 800, ttlMs: 1500, driftPercent: 40 };
    const { A, B } = sweepWorkers(point, 'drifting-clock');
    assert.deepEqual([A.leaseTtlMs, A.renewEveryMs, A.writeEveryMs, A.clockSlowPercent], [1500, 500, 300, 40]);
    assert.equal(B.clockSlowPercent, undefined);
    assert.equal(sweepWorkers({ ...point, driftPercent: 0 }, 'fenced').A.clockSlowPercent, undefined);
    assert.deepEqual([sweepWorkers({ ...point, ttlMs: 500 }, 'fenced').A.writeEveryMs], [100]);
  });
});

describe("a run's classification, from its events", () => {
  const story = (late: 'write_accepted' | 'write_rejected', takeover: boolean) => [
    ev('A', 'lease_acquired', 5),
    ev('A', 'write_accepted', 5),
    ev('A', 'pause_started'),
    ...(takeover ? [ev('B', 'lease_acquired', 6), ev('B', 'write_accepted', 6)] : []),
    ev('A', 'pause_ended'),
    ev('A', late, 5),
  ];

  test('a stale write accepted is a lost update; rejected, fencing at work', () => {
    const lost = classifyRun(story('write_accepted', true));
    assert.deepEqual(
      [lost.outcome, lost.tookOver, lost.staleAttempts, lost.staleAccepted],
      ['stale-accepted', true, 1, 1],
    );
    const fenced = classifyRun(story('write_rejected', true));
    assert.deepEqual([fenced.outcome, fenced.staleAttempts, fenced.staleAccepted], ['stale-rejected', 1, 0]);
  });

  test("a pause shorter than the lease: A's write after it is no stale write", () => {
    const run = classifyRun(story('write_accepted', false));
    assert.deepEqual(
      [run.outcome, run.froze, run.tookOver, run.wroteAfterFreeze],
      ['no-stale-write', true, false, true],
    );
  });

  test('a takeover whose holder had not written yet when A wrote is no stale write (fencing accepts it by design)', () => {
    const events = [
      ev('A', 'lease_acquired', 5),
      ev('A', 'pause_started'),
      ev('B', 'lease_acquired', 6),
      ev('A', 'pause_ended'),
      ev('A', 'write_accepted', 5),
      ev('B', 'write_accepted', 6),
    ];
    assert.equal(classifyRun(events).outcome, 'no-stale-write');
  });

  test('A finding its lease taken over before the pause struck (a slow clock renews late) wrote nothing stale', () => {
    const events = [
      ev('A', 'lease_acquired', 5),
      ev('A', 'lease_lost', 5),
      ev('A', 'lease_acquired', 6),
      ev('A', 'write_accepted', 6),
      ev('B', 'lease_acquired', 7),
      ev('B', 'write_accepted', 7),
      ev('A', 'lease_lost', 6),
    ];
    const run = classifyRun(events);
    assert.deepEqual([run.outcome, run.froze, run.lostBeforeFreeze], ['lease-lost-first', false, true]);
    // Its own lease lost and taken again, with nobody else about, ends nothing: the story goes on.
    assert.equal(classifyRun(events.slice(0, 4)).outcome, 'unfinished');
  });

  test('a story that stopped before A wrote after its freeze is unfinished', () => {
    assert.equal(classifyRun([ev('A', 'lease_acquired', 5), ev('A', 'pause_started')]).outcome, 'unfinished');
    assert.equal(classifyRun([]).outcome, 'unfinished');
  });
});

describe('the heat map', () => {
  const grid = { pausesMs: [2000, 200], ttlsMs: [500, 1500], driftsPercent: [0] };
  const point = (pauseMs: number, ttlMs: number) => ({ pauseMs, ttlMs, driftPercent: 0 });

  test('a cell per run: columns by pause, rows by TTL, the fenced panel to the right; each in words', () => {
    const layout = layoutHeatmap(grid, [
      { point: point(2000, 500), fencing: 'unfenced', outcome: 'stale-accepted' },
      { point: point(2000, 500), fencing: 'fenced', outcome: 'stale-rejected' },
    ]);
    assert.equal(layout.cells.length, 8);
    const at = (p: number, t: number, f: 'unfenced' | 'fenced') =>
      layout.cells.find((c) => c.key === cellKey(point(p, t), f));
    const lost = at(2000, 500, 'unfenced');
    assert.equal(lost?.label, 'lost update');
    assert.equal(lost?.symbol, '✗');
    assert.match(
      String(lost?.words),
      /pause 2000 ms, lease TTL 500 ms, without fencing: a stale write was attempted and accepted/,
    );
    assert.equal(at(2000, 500, 'fenced')?.label, 'rejected');
    assert.match(String(at(200, 1500, 'fenced')?.words), /not run \(the sweep ended first\)/);
    assert.ok((at(200, 500, 'unfenced')?.x ?? 0) < (at(2000, 500, 'unfenced')?.x ?? 0), 'pauses ascend to the right');
    assert.ok((at(200, 500, 'unfenced')?.y ?? 0) < (at(200, 1500, 'unfenced')?.y ?? 0), 'TTLs ascend downwards');
    assert.ok(
      (at(2000, 500, 'unfenced')?.x ?? 0) < (at(200, 500, 'fenced')?.x ?? 0),
      'the fenced panel is to the right',
    );
    for (const cell of layout.cells) {
      assert.ok(cell.x + cell.w <= layout.width && cell.y + cell.h <= layout.height, `${cell.key} inside the figure`);
    }
  });

  test('while the sweep runs, a cell without a result is under way or waiting, not "not run yet"', () => {
    const layout = layoutHeatmap(grid, [], true);
    const cell = layout.cells.find((c) => c.key.includes('200'));
    assert.equal(cell?.label, 'under way or waiting its turn');
    assert.doesNotMatch(String(cell?.words), /not run/);
  });

  test("a narrow grid's panels still leave room for their titles", () => {
    const layout = layoutHeatmap({ pausesMs: [200], ttlsMs: [500], driftsPercent: [0, 75] }, []);
    const titles = layout.texts.filter((t) => t.bold);
    const fencedLeft = Math.min(...titles.filter((t) => t.text.startsWith('Fenced')).map((t) => t.x));
    const widest = Math.max(...titles.filter((t) => t.text.startsWith('Without')).map((t) => t.text.length));
    // About 0.6 em a character at 16 px, bold.
    assert.ok(16 + widest * 16 * 0.6 < fencedLeft, `${widest} characters fit before x = ${fencedLeft}`);
  });

  test('the SVG draws every cell with its words as a <title>, in the chosen theme', () => {
    const layout = layoutHeatmap(grid, [{ point: point(200, 500), fencing: 'fenced', outcome: 'no-stale-write' }]);
    const light = sweepSvg(layout, 'light', 'Sweep <1>');
    const dark = sweepSvg(layout, 'dark', 'Sweep <1>');
    assert.equal(light.match(/<g data-outcome=/g)?.length, 8);
    assert.match(light, /<title>Sweep &lt;1&gt;<\/title>/);
    assert.match(light, /<title>pause 200 ms, lease TTL 500 ms, fenced: no stale write/);
    assert.match(light, /fill="#ffffff"/);
    assert.match(dark, /fill="#020617"/);
  });

  test('a run cut short by a stop reads as stopped, in symbol, word and sentence, and the progress says so', () => {
    const layout = layoutHeatmap(grid, [{ point: point(2000, 500), fencing: 'fenced', outcome: 'stopped' }]);
    const cell = layout.cells.find((c) => c.key === cellKey(point(2000, 500), 'fenced'));
    assert.deepEqual([cell?.symbol, cell?.label], ['■', 'stopped']);
    assert.match(String(cell?.words), /fenced: stopped: the sweep was stopped while this run was under way/);
    assert.match(layout.texts.map((t) => t.text).join(' '), /■ stopped/, 'the legend names it');
    const view = { done: 3, total: 8, failure: undefined, stopped: true };
    assert.equal(
      sweepProgressText({ ...view, running: true }),
      'Stopping: 3 of 8 runs done, the runs under way end now',
    );
    assert.equal(sweepProgressText({ ...view, running: false }), 'Stopped after 3 of 8 runs');
    assert.equal(
      sweepProgressText({ ...view, stopped: false, running: true, underWay: 2 }),
      '3 of 8 runs done, 2 under way',
    );
  });
});
