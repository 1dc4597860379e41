import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { handMade, recorded } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import {
  advance,
  eventsUntil,
  leaseAt,
  momentParam,
  nextEventTime,
  parseMomentParam,
  previousEventTime,
  REPLAY_SPEEDS,
  replayBounds,
  rowAt,
  storyBounds,
  workersAt,
} from './replay';

const { at, ev } = handMade(Date.UTC(2026, 0, 1, 12, 0, 0));
const expires = (s: number) => ({ expiresAt: new Date(at(s)).toISOString() });

// A takes token 7 until 3 s, renews to 4 s, freezes; B takes token 8 at 4.5 s and writes; A's late write is rejected.
const story = [
  ev(1, 0, 'A', 'lease_acquired', { token: 7, detail: expires(3) }),
  ev(2, 1, 'A', 'write_accepted', { token: 7, rowId: 1, detail: { value: 'A-1' } }),
  ev(3, 2, 'A', 'lease_renewed', { token: 7, detail: expires(4) }),
  ev(4, 4, 'A', 'lease_expired', { token: 7, detail: expires(4) }),
  ev(5, 4.5, 'B', 'lease_acquired', { token: 8, detail: expires(7.5) }),
  ev(6, 5, 'B', 'write_accepted', { token: 8, rowId: 1, detail: { value: 'B-1' } }),
  ev(7, 6, 'A', 'write_rejected', { token: 7, storedToken: 8, detail: { value: 'A-2' } }),
  ev(8, 7, 'B', 'lease_released', { token: 8 }),
];

describe('bounds and stepping', () => {
  test('the bounds are the first and last event times; none for an empty history', () => {
    assert.deepEqual(replayBounds(story), { from: at(0), to: at(7) });
    assert.equal(replayBounds([]), undefined);
  });

  test("a run's story starts at its first grant, however long it waited after its first event", () => {
    const waited = [ev(0, -95, 'server', 'worker_started'), ...story];
    assert.deepEqual(storyBounds(waited), { from: at(0), to: at(7) });
    assert.deepEqual(storyBounds([ev(1, 2, 'A', 'worker_started')]), { from: at(2), to: at(2) });
  });

  test('events until a moment keep id order, even when a later id has an earlier clock reading', () => {
    const skewed = [ev(1, 0, 'A', 'worker_started'), ev(2, 2, 'A', 'pause_started'), ev(3, 1, 'B', 'worker_started')];
    assert.deepEqual(
      eventsUntil(skewed, at(1)).map((e) => e.id),
      [1, 3],
    );
    assert.deepEqual(
      eventsUntil(story, at(4.5)).map((e) => e.id),
      [1, 2, 3, 4, 5],
      'an event exactly at the moment has happened',
    );
  });

  test('next and previous event times are strict, and undefined past the ends', () => {
    assert.equal(nextEventTime(story, at(1)), at(2));
    assert.equal(nextEventTime(story, at(1.5)), at(2));
    assert.equal(nextEventTime(story, at(7)), undefined);
    assert.equal(previousEventTime(story, at(2)), at(1));
    assert.equal(previousEventTime(story, at(0)), undefined);
  });

  test('advancing plays at the chosen speed and stops at the last event', () => {
    const bounds = { from: at(0), to: at(7) };
    assert.deepEqual(REPLAY_SPEEDS, [0.25, 0.5, 1, 2, 4]);
    assert.equal(advance(at(1), 1_000, 2, bounds), at(3));
    assert.equal(advance(at(1), 1_000, 0.25, bounds), at(1.25));
    assert.equal(advance(at(6), 10_000, 1, bounds), at(7));
  });
});

describe('the row and the lease at a moment', () => {
  test('the row is the last accepted write by then, never a rejected one', () => {
    assert.equal(rowAt(story, at(0.5)), undefined);
    assert.deepEqual(rowAt(story, at(1)), { value: 'A-1', lastToken: 7, by: 'A', eventId: 2 });
    assert.deepEqual(rowAt(story, at(6.5)), { value: 'B-1', lastToken: 8, by: 'B', eventId: 6 });
  });

  test('the lease is held until its renewed expiry, then by nobody until the next grant, then released', () => {
    assert.deepEqual(leaseAt(story, at(0)), { holder: 'A', token: 7, expiresAt: at(3) });
    assert.deepEqual(leaseAt(story, at(3.5)), { holder: 'A', token: 7, expiresAt: at(4) }, 'renewed');
    assert.equal(leaseAt(story, at(4.2)), undefined, 'expired, nobody took it yet');
    assert.deepEqual(leaseAt(story, at(6)), { holder: 'B', token: 8, expiresAt: at(7.5) });
    assert.equal(leaseAt(story, at(7)), undefined, 'released');
  });

  test('an expired lease is not held even before anything recorded its expiry', () => {
    const quiet = [ev(1, 0, 'A', 'lease_acquired', { token: 5, detail: expires(1) }), ev(2, 9, 'A', 'worker_stopped')];
    assert.equal(leaseAt(quiet, at(2)), undefined);
  });

  test('a crashed holder keeps the lease until it runs out: the database does not know it crashed', () => {
    const crash = [ev(1, 0, 'A', 'lease_acquired', { token: 5, detail: expires(3) }), ev(2, 1, 'A', 'worker_crashed')];
    assert.deepEqual(leaseAt(crash, at(2)), { holder: 'A', token: 5, expiresAt: at(3) });
    assert.equal(leaseAt(crash, at(3)), undefined);
  });

  test('in the recorded fenced pause, A holds the lease while frozen, B after it; the row ends with B-1', () => {
    const events = recorded('fenced');
    const pause = events.find((e) => e.kind === 'pause_started');
    const grantB = events.find((e) => e.kind === 'lease_acquired' && e.actor === 'B');
    assert.ok(pause && grantB);
    assert.equal(leaseAt(events, pause.at + 100)?.holder, 'A');
    assert.deepEqual(leaseAt(events, grantB.at + 1), {
      holder: 'B',
      token: grantB.token,
      expiresAt: Date.parse(String(grantB.detail.expiresAt)),
    });
    assert.equal(rowAt(events, events.at(-1)?.at ?? 0)?.value, 'B-1');
  });
});

describe('moments in permalinks', () => {
  const bounds = { from: at(0), to: at(7) };

  test('a moment is whole ms since the first event, and reads back to the same moment', () => {
    assert.equal(momentParam(at(1.2345), at(0)), '1235');
    assert.equal(parseMomentParam(momentParam(at(2.5), at(0)), bounds), at(2.5));
    assert.equal(parseMomentParam('0', bounds), at(0));
  });

  test('a moment past the end is clamped to the last event', () => {
    assert.equal(parseMomentParam('99999999', bounds), at(7));
  });

  test('anything else is no moment at all, without throwing', () => {
    for (const raw of ['', '-5', '1.5', '1e3', ' 12', '12a', '0x10', '9'.repeat(400), null, undefined]) {
      assert.equal(parseMomentParam(raw, bounds), undefined, `rejects ${JSON.stringify(raw)}`);
    }
    assert.equal(parseMomentParam('12', undefined), undefined, 'no history, no moment');
  });
});

test("the workers at a moment: each as the events had it then, A frozen, B holding, A's lease run out while it believes", () => {
  const events = recorded('fenced');
  const at = (kind: string, actor: string) => events.find((e) => e.kind === kind && e.actor === actor)?.at ?? 0;
  const phases = (t: number) => workersAt(events, t).map((w) => `${w.name} ${w.phase} ${w.token ?? ''}`.trim());
  assert.deepEqual(phases(at('write_accepted', 'A')), ['A holding 62']);
  assert.deepEqual(phases(at('pause_started', 'A')), ['A paused 62']);
  assert.deepEqual(phases(at('write_accepted', 'B')), ['A paused 62', 'B holding 63']);
  assert.deepEqual(phases(at('lease_lost', 'A')), ['A acquiring', 'B holding 63']);
  // The drifting clock: A kept running past its lease, believing; nothing had told it yet.
  const drift = recorded('drifting-clock');
  const expired = drift.find((e) => e.kind === 'lease_expired' && e.actor === 'A')?.at ?? 0;
  assert.deepEqual(
    workersAt(drift, expired).map((w) => `${w.name} ${w.phase}`),
    ['A expired', 'B acquiring'],
  );
});

test("the workers at a moment: a restarted worker does not hold its old lease, and a lease is expired by its recorded end, not by the expiry's record", () => {
  const t0 = Date.UTC(2026, 11, 4, 12, 0, 0);
  const at = (s: number) => t0 + s * 1000;
  const iso = (s: number) => new Date(at(s)).toISOString();
  const history = (rows: Array<Pick<WireEvent, 'id' | 'at' | 'actor' | 'kind'> & Partial<WireEvent>>): WireEvent[] =>
    rows.map((e) => ({ lab: 'fenced', detail: {}, ...e }));
  const phases = (events: WireEvent[], s: number) =>
    workersAt(events, at(s)).map((w) => `${w.name} ${w.phase} ${w.token ?? ''}`.trim());
  const restarted = history([
    { id: 1, at: at(0), actor: 'A', kind: 'worker_started' },
    { id: 2, at: at(0.1), actor: 'A', kind: 'lease_acquired', token: 7, detail: { expiresAt: iso(3.1) } },
    { id: 3, at: at(1), actor: 'A', kind: 'worker_restarted' },
  ]);
  assert.deepEqual(phases(restarted, 0.5), ['A holding 7']);
  // The database's lease runs until 3.1 s, but the process started at 1 s never took it.
  assert.deepEqual(phases(restarted, 1.5), ['A acquiring']);
  const unrecorded = history([
    { id: 1, at: at(0), actor: 'A', kind: 'worker_started' },
    { id: 2, at: at(0.1), actor: 'A', kind: 'lease_acquired', token: 7, detail: { expiresAt: iso(3.1) } },
    { id: 3, at: at(1), actor: 'A', kind: 'lease_renewed', token: 7, detail: { expiresAt: iso(4) } },
    // The expiry recorder writes its event late: the lease ended at 4 s all the same.
    { id: 4, at: at(6), actor: 'A', kind: 'lease_expired', token: 7, detail: { expiresAt: iso(4) } },
  ]);
  assert.deepEqual(phases(unrecorded, 3.5), ['A holding 7'], 'renewed to 4 s');
  assert.deepEqual(phases(unrecorded, 4.5), ['A expired 7']);
});
