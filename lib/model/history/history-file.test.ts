import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recorded } from '../../testing/histories';
import { buildTimeline } from '../timeline/timeline';
import {
  type HistoryInput,
  MAX_HISTORY_EVENTS,
  parseHistoryFile,
  serializeHistory,
  toHistoryFile,
} from './history-file';

const events = recorded('fenced');
const input: HistoryInput = {
  lab: { id: 'fenced', kind: 'fenced', title: 'Fenced' },
  events,
  exportedAt: new Date(Date.UTC(2026, 10, 30, 10, 30, 0)),
};

/** The exported file as an object to break one field at a time. */
const exported = () => JSON.parse(serializeHistory(input)) as Record<string, unknown> & { events: unknown[] };
const errorOf = (value: unknown): string => {
  const parsed = parseHistoryFile(typeof value === 'string' ? value : JSON.stringify(value));
  assert.equal(parsed.ok, false, 'rejected');
  return parsed.ok ? '' : parsed.error;
};

describe('a round trip through the file', () => {
  test('the envelope says what it is, when and from which lab', () => {
    const file = toHistoryFile(input);
    assert.equal(file.format, 'fencing-lab-history');
    assert.equal(file.version, 2);
    assert.equal(file.exportedAt, '2026-11-30T10:30:00.000Z');
    assert.deepEqual(file.lab, { id: 'fenced', kind: 'fenced', title: 'Fenced' });
  });

  test('serialize then parse gives the same events, and the same timeline at every moment', () => {
    const parsed = parseHistoryFile(serializeHistory(input));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.deepEqual(parsed.file.events, events);
    for (const event of events) {
      assert.deepEqual(buildTimeline(parsed.file.events, event.at), buildTimeline(events, event.at));
    }
  });

  test('fields a WireEvent does not have are left out of the export', () => {
    const first = events[0];
    assert.ok(first);
    const extra = { ...first, secret: 'x' } as typeof first;
    assert.equal('secret' in (toHistoryFile({ ...input, events: [extra] }).events[0] ?? {}), false);
  });
});

describe('what is not a history is refused in words, never thrown', () => {
  test('not JSON, not our format, another version', () => {
    assert.equal(errorOf('{ nope'), 'the file is not JSON');
    assert.match(errorOf('null'), /not a Fencing Lab history/);
    assert.match(errorOf([1, 2]), /not a Fencing Lab history/);
    assert.match(errorOf({ ...exported(), format: 'something-else' }), /not a Fencing Lab history/);
    assert.match(errorOf({ ...exported(), version: 3 }), /version 3 is not supported: this app reads versions 1 and 2/);
  });

  test('a bad envelope field is named', () => {
    assert.match(errorOf({ ...exported(), exportedAt: 'yesterday' }), /^exportedAt: /);
    assert.match(
      errorOf({ ...exported(), lab: { id: 'x', kind: 'nope', title: 'X' } }),
      /^lab\.kind: lab kind must be/,
    );
    assert.match(errorOf({ ...exported(), events: 'many' }), /^events: events must be a list/);
  });

  const withEvent = (index: number, change: Record<string, unknown>) => {
    const file = exported();
    file.events[index] = { ...(file.events[index] as object), ...change };
    return file;
  };

  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an unknown kind', { kind: 'lease_stolen' }, /^events\[3\]\.kind: kind must be one of: lease_acquired, /],
    ['a zero id', { id: 0 }, /^events\[3\]\.id: id must be at least 1/],
    ['a fractional id', { id: 2.5 }, /^events\[3\]\.id: id must be a whole number/],
    ['a time as text', { at: '10:00' }, /^events\[3\]\.at: at must be a number/],
    ['a negative token', { token: -1 }, /^events\[3\]\.token: token must be at least 1/],
    ['a token beyond safe integers', { token: 2 ** 60 }, /^events\[3\]\.token: token is too large/],
    ['a token as text', { token: '62' }, /^events\[3\]\.token: token must be a number/],
    ['a negative stored token', { storedToken: -1 }, /^events\[3\]\.storedToken: storedToken must not be negative/],
    ['a detail that is a list', { detail: [] }, /^events\[3\]\.detail: detail must be an object/],
    ['a missing actor', { actor: undefined }, /^events\[3\]\.actor: actor must be text/],
    ['a field no event has', { colour: 'red' }, /^events\[3\]: .*colour/],
  ];
  for (const [what, change, expected] of cases) {
    test(`${what} is named with the event's index`, () => {
      assert.match(errorOf(withEvent(3, change)), expected);
    });
  }

  test('an event that is not an object, and ids out of order', () => {
    const file = exported();
    file.events[2] = 'hello';
    assert.match(errorOf(file), /^events\[2\]: an event must be an object/);
    const second = (exported().events[1] ?? {}) as { id: number };
    assert.match(
      errorOf(withEvent(2, { id: second.id })),
      new RegExp(`^events\\[2\\]\\.id: ids must increase strictly, but ${second.id} follows ${second.id}`),
    );
  });

  test('many problems are summed up, not listed', () => {
    const file = exported();
    file.events = file.events.map((e) => ({ ...(e as object), kind: 'nope' }));
    assert.match(errorOf(file), /\(and \d+ more\)$/);
  });

  test('more events than can be replayed are refused before anything else is checked', () => {
    const file = { ...exported(), events: new Array(MAX_HISTORY_EVENTS + 1).fill(0) };
    assert.equal(
      errorOf(file),
      `too many events: ${MAX_HISTORY_EVENTS + 1}, at most ${MAX_HISTORY_EVENTS} can be replayed`,
    );
  });
});
