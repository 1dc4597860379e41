import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import { toHistoryFile } from '../history/history-file';
import { buildTimeline } from '../timeline/timeline';
import { describeTimeline } from '../timeline/timeline-layout';
import { writeLabel } from '../timeline/timeline-layout-words';
import { counterexampleWithStatement } from './guard-replay';

/*
 * A your-guard attempt replayed says what really ran: the trainee's statement, and what it did (an
 * error, a stale write let through, a fresh one refused), never the seed's "WHERE last_token <= N".
 * The events are as 0033's fl_your_guard_write records them.
 */

const { at, ev } = handMade(3_000_000);
const SET = 'UPDATE guarded_row SET value = $1, last_token = $2 WHERE id = $3';
const LAB = 'p-abcdefghij';

/** A write through the guard, as the lab records it. */
const write = (id: number, s: number, actor: string, token: number, value: string, extra: Partial<WireEvent> = {}) =>
  ev(id, s, actor, 'write_accepted', {
    lab: LAB,
    token,
    rowId: 1,
    outcome: 'accepted',
    detail: { value, table: 'guarded_row', path: 'your guard', changedRows: 1 },
    ...extra,
  });
const refused = (id: number, s: number, actor: string, token: number, value: string, storedToken: number) =>
  write(id, s, actor, token, value, {
    kind: 'write_rejected',
    outcome: 'stale',
    storedToken,
    detail: { value, table: 'guarded_row', path: 'your guard', changedRows: 0 },
  });
const grant = (id: number, s: number, actor: string, token: number) =>
  ev(id, s, actor, 'lease_acquired', { lab: LAB, token, detail: { expiresAt: new Date(at(s + 1.5)).toISOString() } });

/** The pause story's start: A writes with 9 and freezes, B takes over with 10. */
const story = [
  grant(1, 0, 'A', 9),
  write(2, 0.1, 'A', 9, 'A-1'),
  ev(3, 0.4, 'A', 'pause_started', { lab: LAB, detail: { trigger: 'critical-window' } }),
  grant(4, 2, 'B', 10),
];

/** The replayed counterexample's marks in words, each as a trainer reads it: its title, then its lines. */
function replayed(events: WireEvent[], statement: string) {
  const file = counterexampleWithStatement(
    toHistoryFile({
      lab: { id: LAB, kind: 'your-guard', title: "Your guard: Ada's guard" },
      events,
      exportedAt: new Date(at(9)),
    }),
    statement,
  );
  const timeline = buildTimeline(file.events, at(10));
  const words = describeTimeline(timeline, new Set());
  const writeOf = (eventId: number) => {
    const mark = words.find((m) => m.eventId === eventId && m.kind.startsWith('write'));
    assert.ok(mark, `a write mark for event ${eventId}`);
    const drawn = timeline.lanes.flatMap((lane) => lane.writes).find((w) => w.eventId === eventId);
    assert.ok(drawn);
    return { text: `${mark.title}. ${mark.lines.join('. ')}`, title: mark.title, label: writeLabel(drawn) };
  };
  return { writeOf };
}

describe('a your-guard counterexample, replayed', () => {
  test("a guard that raised an error: the trainee's statement, PostgreSQL's words, and nothing of stale", () => {
    const statement = `${SET} AND last_token <= $2 AND 1 / (10 - $2) >= 0`;
    const raised = write(5, 2.1, 'B', 10, 'B-1', {
      kind: 'write_rejected',
      outcome: 'error',
      detail: { value: 'B-1', table: 'guarded_row', path: 'your guard', error: 'division by zero' },
    });
    const { writeOf } = replayed([...story, raised], statement);
    const b = writeOf(5);
    assert.equal(b.title, `B's write "B-1" with token 10: your guard raised an error: division by zero`);
    assert.ok(b.text.includes(`your guard ran: ${statement}`), b.text);
    assert.doesNotMatch(b.text, /stale|WHERE last_token <= 10:|\?/);
    assert.equal(b.label, '10: error');
  });

  test('a guard that let a stale write through: accepted over the newer token, with the statement that ran', () => {
    const events = [
      ...story,
      write(5, 2.1, 'B', 10, 'B-1'),
      ev(6, 3.4, 'A', 'pause_ended', { lab: LAB }),
      write(7, 3.5, 'A', 9, 'A-2'),
    ];
    const { writeOf } = replayed(events, SET);
    const late = writeOf(7);
    assert.equal(late.title, `A's write "A-2" with token 9: accepted over the newer token 10`);
    assert.ok(late.text.includes(`your guard ran: ${SET}; it changed the row`), late.text);
    assert.doesNotMatch(late.text, /WHERE last_token <= 9|RETURNING/);
    assert.equal(writeOf(2).title, `A's write "A-1" with token 9: accepted`, 'the first write was over nothing newer');
  });

  test('a guard that turned a fresh write away (tokens compared as text): refused, though the row held only 9', () => {
    const statement = `${SET} AND last_token::text <= $2::text`;
    const { writeOf } = replayed([...story, refused(5, 2.1, 'B', 10, 'B-1', 9)], statement);
    const b = writeOf(5);
    assert.equal(b.title, `B's write "B-1" with token 10: refused, though the row held only the older token 9`);
    assert.ok(b.text.includes(`your guard ran: ${statement}; it changed no row, and the row holds token 9`), b.text);
    assert.doesNotMatch(b.text, /stale|WHERE last_token <= 10/);
  });

  test('a guard that held: each write says the statement that ran, the stale one rejected as stale', () => {
    const statement = `${SET} AND last_token <= $2`;
    const events = [
      ...story,
      write(5, 2.1, 'B', 10, 'B-1'),
      ev(6, 3.4, 'A', 'pause_ended', { lab: LAB }),
      refused(7, 3.5, 'A', 9, 'A-2', 10),
    ];
    const { writeOf } = replayed(events, statement);
    for (const id of [2, 5, 7]) assert.ok(writeOf(id).text.includes(`your guard ran: ${statement};`), writeOf(id).text);
    assert.equal(writeOf(5).title, `B's write "B-1" with token 10: accepted`);
    const late = writeOf(7);
    assert.equal(late.title, `A's write "A-2" with token 9: rejected as stale`);
    assert.ok(late.text.includes('it changed no row, and the row holds token 10'), late.text);
  });
});

test("a your-guard write without its statement (the live lab) claims no statement but the trainee's guard", () => {
  const timeline = buildTimeline([...story, refused(5, 2.1, 'B', 10, 'B-1', 9)], at(10));
  const mark = describeTimeline(timeline, new Set()).find((m) => m.eventId === 5);
  assert.ok(mark);
  assert.match(mark.lines.join('. '), /^.*your guard's statement ran; it changed no row, and the row holds token 9/);
  assert.doesNotMatch(mark.lines.join('. '), /WHERE last_token/);
});
