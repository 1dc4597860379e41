import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade } from '../../testing/histories';
import {
  EXPORT_IDLE_TAIL_MS,
  exportEnd,
  exportFileName,
  momentLabel,
  momentLink,
  momentOffsetLabel,
  stableEventsUntil,
} from './replay-view';

const { at, ev } = handMade(Date.UTC(2026, 0, 1, 12, 0, 0));
const story = [
  ev(1, 0, 'A', 'worker_started'),
  ev(2, 1, 'A', 'write_accepted', { token: 7, rowId: 1, detail: { value: 'A-1' } }),
  ev(3, 2.5, 'B', 'worker_started'),
  ev(4, 40, 'B', 'worker_stopped'),
];
const bounds = { from: at(0), to: at(40) };

describe('how a moment reads', () => {
  test('seconds since the first event, to a tenth, out of the whole history', () => {
    assert.equal(momentLabel(at(12.34), bounds), '12.3 s of 40.0 s');
    assert.equal(momentLabel(at(0), bounds), '0.0 s of 40.0 s');
    assert.equal(momentOffsetLabel(at(2.55), bounds), '2.5 s');
  });
});

describe('the events shown at a moment', () => {
  test('the same array while the moment moves between two events, a new one when it passes one', () => {
    const first = stableEventsUntil(undefined, story, at(1.2));
    assert.deepEqual(
      first.map((e) => e.id),
      [1, 2],
    );
    assert.equal(stableEventsUntil(first, story, at(2.4)), first, 'nothing happened in between');
    const later = stableEventsUntil(first, story, at(2.5));
    assert.notEqual(later, first);
    assert.deepEqual(
      later.map((e) => e.id),
      [1, 2, 3],
    );
    const back = stableEventsUntil(later, story, at(0.5));
    assert.deepEqual(
      back.map((e) => e.id),
      [1],
      'stepping back drops the later events',
    );
  });

  test("at a step's moment, up to the event that reached it: the same array while later events come in, of the same millisecond too", () => {
    const log = [
      ev(1, 0, 'A', 'worker_started'),
      ev(2, 1, 'A', 'write_accepted', { token: 7, rowId: 1, detail: { value: 'A-1' } }),
      ev(3, 1, 'B', 'worker_started'),
    ];
    const held = stableEventsUntil(undefined, log, at(1.2), 2);
    assert.deepEqual(
      held.map((e) => e.id),
      [1, 2],
      "the event of the same millisecond after the step is the next step's",
    );
    const grown = [...log, ev(4, 1.1, 'B', 'worker_stopped')];
    assert.equal(stableEventsUntil(held, grown, at(1.2), 2), held, 'a later event changes nothing shown');
  });
});

describe('links and file names', () => {
  test('a moment link names the lab and the ms since the first event', () => {
    assert.equal(
      momentLink('http://127.0.0.1:3000', 'fenced', at(12.3456), at(0)),
      'http://127.0.0.1:3000/labs/fenced?at=12346',
    );
  });

  test('exported files are named by lab and time, without characters file systems refuse', () => {
    const when = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
    assert.equal(exportFileName('fenced', 'svg', when), 'fencing-lab-fenced-20260102T030405Z.svg');
    assert.equal(exportFileName('p-abc123def4', 'json', when), 'fencing-lab-p-abc123def4-20260102T030405Z.json');
    assert.equal(exportFileName('../x y', 'md', when), 'fencing-lab-___x_y-20260102T030405Z.md');
  });
});

describe('where an export ends', () => {
  test('at the replay moment while replaying, else now, but not long after the last event', () => {
    assert.equal(exportEnd(bounds, at(5), at(100)), at(5));
    assert.equal(exportEnd(bounds, undefined, at(41)), at(41), 'a live lab: up to now');
    assert.equal(exportEnd(bounds, undefined, at(3_600)), at(40) + EXPORT_IDLE_TAIL_MS, 'a lab left idle');
    assert.equal(exportEnd(bounds, undefined, at(39)), at(40), 'never before the last event (clocks differ)');
    assert.equal(exportEnd(undefined, undefined, at(7)), at(7));
  });
});
