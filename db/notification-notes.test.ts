import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DroppedNotesLog, eventNoteOf, workerCommandNoteOf } from './notification-notes';

/*
 * The shapes the database sends pass; anything else anyone could NOTIFY is dropped, and the log
 * says so at most once a minute however many come.
 */

test("the database's own payloads become notes", () => {
  assert.deepEqual(eventNoteOf('fencing_events', '{"id" : 12, "lab" : "fenced"}'), { lab: 'fenced', id: 12 });
  assert.deepEqual(eventNoteOf('fencing_events', '{"lab" : "p-abcdefghij", "reset" : true, "upTo" : 0}'), {
    lab: 'p-abcdefghij',
    reset: true,
    upTo: 0,
  });
  assert.deepEqual(eventNoteOf('fencing_events', '{"lab" : "fenced"}'), { lab: 'fenced' });
  assert.deepEqual(eventNoteOf('fencing_guard_attempts', '{"id" : 7}'), { lab: '', guardAttempt: 7 });
  assert.deepEqual(workerCommandNoteOf('{"lab" : "fenced", "worker" : "A"}'), { lab: 'fenced', worker: 'A' });
});

test('anything else is dropped, never thrown on', () => {
  const junk = [
    undefined,
    '',
    'null',
    '[]',
    '"x"',
    '1',
    '{}',
    '{"lab":"fenced","extra":1}',
    '{"id":"12","lab":"fenced"}',
    '{"id":-1,"lab":"fenced"}',
    '{"id":1.5,"lab":"fenced"}',
    '{"id":1e400,"lab":"fenced"}',
    '{"id":12,"lab":""}',
    '{"lab":"fenced","reset":true}',
    '{"lab":"fenced","reset":"yes","upTo":3}',
    `{"id":1,"lab":"${'x'.repeat(7_900)}"}`,
    'x'.repeat(7_999),
  ];
  for (const payload of junk) {
    assert.equal(eventNoteOf('fencing_events', payload), undefined, String(payload).slice(0, 40));
    assert.equal(eventNoteOf('fencing_guard_attempts', payload), undefined, String(payload).slice(0, 40));
    assert.equal(workerCommandNoteOf(payload), undefined, String(payload).slice(0, 40));
  }
  assert.equal(eventNoteOf('some_other_channel', '{"id":1,"lab":"fenced"}'), undefined);
  assert.equal(workerCommandNoteOf('{"lab":"fenced","worker":null}'), undefined);
});

test('dropped notifications are logged at most once a minute, with how many', (t) => {
  const lines: string[] = [];
  t.mock.method(console, 'warn', (line: string) => lines.push(line));
  let now = 0;
  const log = new DroppedNotesLog('sse', 60_000, () => now);
  for (let i = 0; i < 300; i++) {
    log.dropped('fencing_events', 'null');
    now += 100;
  }
  // 30 s of junk: the first one, at once.
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /dropped 1 notification/);
  now = 60_000;
  log.dropped('fencing_events', '[]');
  assert.equal(lines.length, 2);
  assert.match(lines[1] ?? '', /dropped 300 notification/);
});
