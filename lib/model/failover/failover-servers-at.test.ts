import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { WireEvent } from '../core/wire';
import type { Replication } from '../explore/failover-story';
import { withLeaseEnds } from '../explore/lease-ends';
import {
  applyStep,
  type ExploreState,
  enabledSteps,
  initialState,
  type Step,
  type StepEvent,
  tokenOf,
  type WriteOutcome,
} from '../explore/story';
import { failoverEvent } from './failover-events';
import {
  type FailoverServersAt,
  failoverServersAt,
  type ServerAt,
  serversOptionsOfFile,
  serversOptionsOfTitle,
  withPairStarted,
} from './failover-servers-at';
import type { FailoverStep } from './failover-steps';

/*
 * The pair's servers at a moment, from the events alone: a synchronous story that keeps B's write
 * and an asynchronous one that loses it, each as the live lab records it and as the explorer does.
 */

const STEP_MS = 100;
const T0 = Date.parse('2026-12-06T10:00:00.000Z');

/** The live lab's steps as its events, a step every 100 ms; each grant's lease runs 250 ms by its recorded expiry. */
function liveEvents(steps: readonly FailoverStep[]): WireEvent[] {
  return steps.map((step, i) => {
    const at = T0 + i * STEP_MS;
    const withExpiry =
      step.kind === 'grant' ? { ...step, expiresAt: new Date(at + 2.5 * STEP_MS).toISOString() } : step;
    const { lab: _lab, ...event } = failoverEvent(withExpiry);
    return { ...event, detail: { ...(event.detail ?? {}) }, id: i + 1, at, lab: 'failover' } as WireEvent;
  });
}

const grant = (holder: string, token: string): FailoverStep => ({
  kind: 'grant',
  holder,
  resource: 'lab/failover',
  token,
  server: 'primary',
});
const write = (holder: string, token: string, accepted: boolean, server: 'primary' | 'promoted standby' = 'primary') =>
  ({
    kind: 'write',
    holder,
    token,
    value: `${holder}1`,
    server,
    accepted,
    ...(accepted ? {} : { rowToken: '2' }),
  }) satisfies FailoverStep;

const server = (view: FailoverServersAt, role: ServerAt['role']) => {
  const found = view.servers.find((s) => s.role === role);
  assert.ok(found, `a ${role} in ${JSON.stringify(view.servers.map((s) => s.role))}`);
  return found;
};
const at = (events: readonly WireEvent[], id: number) => events.find((e) => e.id === id)?.at ?? Number.NaN;

describe('the live lab’s story', () => {
  const story = (mode: 'async' | 'sync', promoted: { value: string; lastToken: string }, lease: string) => [
    { kind: 'pair_started', mode } satisfies FailoverStep, // 1
    grant('A', '1'), // 2
    write('A', '1', true), // 3
    { kind: 'replication_cut', sequence: { primaryLastValue: '1', primaryLogCount: 32 } } satisfies FailoverStep, // 4
    ...(mode === 'sync' ? [{ kind: 'replication_healed' } satisfies FailoverStep] : []),
    grant('B', '2'),
    write('B', '2', true),
    { kind: 'primary_killed', sequence: { primaryLastValue: '2', standbyCeiling: '33' } } satisfies FailoverStep,
    {
      kind: 'standby_promoted',
      row: promoted,
      lease: { resource: 'lab/failover', holder: lease, token: lease === 'A' ? '1' : '2' },
    } satisfies FailoverStep,
    write('A', '1', mode === 'async', 'promoted standby'),
  ];

  test('asynchronous: before the promotion the primary has B’s write and the standby’s is not recorded; after it, the standby holds A’s', () => {
    const events = liveEvents(story('async', { value: 'A1', lastToken: '1' }, 'A'));
    const before = failoverServersAt(events, at(events, 6)); // B's write, before the kill
    assert.equal(before.mode, 'async');
    assert.equal(before.replicationCut, true);
    assert.deepEqual(server(before, 'primary').row, { value: 'B1', lastToken: '2' });
    assert.deepEqual(server(before, 'primary').lease, { holder: 'B', token: '2', runs: true });
    assert.deepEqual(server(before, 'primary').sequence, { lastValue: '2' });
    assert.ok('notRecorded' in server(before, 'standby').row);
    assert.deepEqual(
      before.holders.map((h) => [h.name, h.token]),
      [
        ['A', '1'],
        ['B', '2'],
      ],
    );

    const after = failoverServersAt(events, at(events, 8)); // promoted
    assert.equal(after.promoted, true);
    assert.equal(server(after, 'primary').running, false);
    assert.deepEqual(server(after, 'promoted standby').row, { value: 'A1', lastToken: '1' });
    // A's lease ran out by its recorded expiry (250 ms after its grant at 100 ms): the promoted server's lease row is A's, run out.
    assert.deepEqual(server(after, 'promoted standby').lease, { holder: 'A', token: '1', runs: false });
    assert.deepEqual(server(after, 'promoted standby').sequence, { coversUpTo: '33' });

    const late = failoverServersAt(events, at(events, 9)); // A's late write, accepted
    assert.deepEqual(server(late, 'promoted standby').row, { value: 'A1', lastToken: '1' });
  });

  test('synchronous: the standby has every acknowledged write, B’s included, before and after the promotion', () => {
    const events = liveEvents(story('sync', { value: 'B1', lastToken: '2' }, 'B'));
    const beforeB = failoverServersAt(events, at(events, 6)); // B granted, not written yet
    assert.deepEqual(server(beforeB, 'standby').row, { value: 'A1', lastToken: '1' });
    assert.deepEqual(server(beforeB, 'standby').lease, { holder: 'B', token: '2', runs: true });
    const before = failoverServersAt(events, at(events, 7)); // B's write
    assert.deepEqual(server(before, 'primary').row, { value: 'B1', lastToken: '2' });
    assert.deepEqual(server(before, 'standby').row, { value: 'B1', lastToken: '2' });
    assert.equal(before.replicationCut, false);

    const end = failoverServersAt(events, at(events, 10)); // A's late write, rejected
    assert.deepEqual(server(end, 'promoted standby').row, { value: 'B1', lastToken: '2' });
    assert.deepEqual(
      end.servers.map((s) => [s.role, s.running]),
      [
        ['primary', false],
        ['promoted standby', true],
      ],
    );
  });

  test('a moment sees nothing after it, and before the start there is no pair; after the stop, none runs', () => {
    const events = liveEvents([...story('async', { value: 'A1', lastToken: '1' }, 'A'), { kind: 'pair_stopped' }]);
    assert.deepEqual(failoverServersAt(events, T0 - 1).servers, []);
    assert.equal(failoverServersAt(events, T0 - 1).pair, 'none');
    const first = failoverServersAt(events, at(events, 1));
    assert.deepEqual(server(first, 'primary').row, { value: 'initial', lastToken: '0' });
    assert.deepEqual(server(first, 'standby').row, { value: 'initial', lastToken: '0' });
    assert.equal(server(first, 'primary').lease, 'none');
    assert.deepEqual(first.holders, []);
    const stopped = failoverServersAt(events, at(events, 10));
    assert.equal(stopped.pair, 'stopped');
    assert.ok(stopped.servers.every((s) => !s.running));
  });
});

describe('an explored path', () => {
  const ROW = { value: 'initial', token: 0 };
  const fencedOn = (state: ExploreState, step: Step): WriteOutcome | undefined => {
    if (step.kind !== 'write') return undefined;
    return state.row.token <= tokenOf(state, step.holder)
      ? { outcome: 'accepted' }
      : { outcome: 'stale', storedToken: state.row.token };
  };
  /** The path's events as the Explore page draws them: ids from 1, a step every 100 ms, each lease with its end. */
  function explored(replication: Replication, steps: readonly Step[]): WireEvent[] {
    const bounds = { holders: 2, writes: 1 };
    const start = { rule: { tokens: [], writeWith: 'lease-token' as const }, row: ROW, failover: { replication } };
    let state = initialState(bounds, start);
    const events: StepEvent[] = [];
    for (const step of steps) {
      assert.ok(enabledSteps(state, bounds).some((s) => JSON.stringify(s) === JSON.stringify(step)));
      const next = applyStep(state, step, start.rule, fencedOn(state, step));
      state = next.state;
      events.push(next.event);
    }
    return withLeaseEnds(
      events.map((e, i) => ({ ...e, id: i + 1, at: T0 + i * STEP_MS, lab: 'failover' })),
      STEP_MS,
    );
  }
  const STORY: Step[] = [
    { kind: 'acquire', holder: 'A' },
    { kind: 'write', holder: 'A' },
    { kind: 'catch-up' },
    { kind: 'expire' },
    { kind: 'acquire', holder: 'B' },
    { kind: 'write', holder: 'B' },
    { kind: 'promote' },
  ];

  test('asynchronous: the standby has A’s write from the catch-up, never B’s; promoted, it holds A’s', () => {
    const events = explored('async', STORY);
    const options = { explored: { mode: 'async' as const }, holders: ['A', 'B'] };
    const start = failoverServersAt(events, T0 - 1, options);
    assert.deepEqual(server(start, 'standby').row, { value: 'initial', lastToken: '0' });
    assert.deepEqual(
      start.holders.map((h) => [h.name, h.token]),
      [
        ['A', undefined],
        ['B', undefined],
      ],
    );
    const written = failoverServersAt(events, at(events, 2), options); // A's write, not caught up
    assert.deepEqual(server(written, 'primary').row, { value: 'A1', lastToken: '1' });
    assert.deepEqual(server(written, 'standby').row, { value: 'initial', lastToken: '0' });
    const before = failoverServersAt(events, at(events, 6), options); // B's write
    assert.deepEqual(server(before, 'primary').row, { value: 'B1', lastToken: '2' });
    assert.deepEqual(server(before, 'standby').row, { value: 'A1', lastToken: '1' });
    assert.deepEqual(server(before, 'standby').lease, { holder: 'A', token: '1', runs: false });
    assert.deepEqual(server(before, 'primary').lease, { holder: 'B', token: '2', runs: true });
    assert.equal(before.replicationCut, undefined);

    const after = failoverServersAt(events, at(events, 7), options); // promoted
    assert.deepEqual(server(after, 'promoted standby').row, { value: 'A1', lastToken: '1' });
    assert.deepEqual(server(after, 'promoted standby').lease, { holder: 'A', token: '1', runs: false });
    assert.deepEqual(server(after, 'promoted standby').sequence, { coversUpTo: '33' });
    // The explored promotion is the primary's death: its lease row is what it held, not a lease that ran out.
    assert.deepEqual(server(after, 'primary'), {
      role: 'primary',
      running: false,
      row: { value: 'B1', lastToken: '2' },
      lease: { holder: 'B', token: '2', runs: undefined },
      sequence: { lastValue: '2' },
    });
  });

  test('synchronous: the standby has each write as it is acknowledged; promoted, it holds B’s', () => {
    const steps = STORY.filter((s) => s.kind !== 'catch-up');
    const events = explored('sync', steps);
    const options = { explored: { mode: 'sync' as const } };
    const before = failoverServersAt(events, at(events, 5), options); // B's write
    assert.deepEqual(server(before, 'standby').row, { value: 'B1', lastToken: '2' });
    const after = failoverServersAt(events, at(events, 6), options);
    assert.deepEqual(server(after, 'promoted standby').row, { value: 'B1', lastToken: '2' });
    assert.deepEqual(server(after, 'promoted standby').lease, { holder: 'B', token: '2', runs: true });
  });

  test('its history file records the pair’s start first, with its replication: the view reads the mode there, the title only for an older file', () => {
    const steps = STORY.filter((s) => s.kind !== 'catch-up');
    const path = explored('sync', steps);
    const events = withPairStarted(path, 'sync', { lab: 'failover-1', at: 0 });
    assert.deepEqual(events[0], {
      id: 1,
      lab: 'failover-1',
      at: T0,
      actor: 'cluster',
      kind: 'pair_started',
      detail: { mode: 'sync' },
    });
    assert.deepEqual(
      events.slice(1).map((e) => e.id),
      path.map((e) => e.id + 1),
    );
    const title = 'Failover: an explored interleaving of 2 holders × 1 writes (synchronous replication), 6 steps';
    const options = serversOptionsOfFile(title, events);
    assert.deepEqual(options, { explored: { mode: 'sync' }, holders: ['A', 'B'] });
    // The mode is the event's, whatever the title says (or does not).
    const untitled = 'Failover: an explored interleaving of 2 holders × 1 writes, 6 steps';
    assert.deepEqual(serversOptionsOfFile(untitled, events), options);
    // A file exported before the start was recorded: the title's words, as before.
    assert.deepEqual(serversOptionsOfFile(title, path), options);
    assert.deepEqual(serversOptionsOfFile(untitled, path), { explored: { mode: undefined }, holders: ['A', 'B'] });
    // The live lab's file: its three holders; its mode is its own pair_started's.
    assert.deepEqual(serversOptionsOfFile('Failover', events), { holders: ['A', 'B', 'C'] });

    // The view of the file is the view of the path: the recorded start changes nothing of what it shows.
    for (const moment of [T0 - 1, ...path.map((e) => e.at)])
      assert.deepEqual(failoverServersAt(events, moment, options), failoverServersAt(path, moment, options));
    const before = failoverServersAt(events, at(events, 6), options); // B's write
    assert.equal(before.replicationCut, undefined);
    assert.deepEqual(server(before, 'standby').row, { value: 'B1', lastToken: '2' });
  });

  test('with its mode unknown (a file that does not say), the standby after a write is not recorded', () => {
    const events = explored('async', STORY);
    const view = failoverServersAt(events, at(events, 2), { explored: { mode: undefined } });
    assert.equal(view.mode, undefined);
    assert.ok('notRecorded' in server(view, 'standby').row);
  });
});

test('a history file’s title says whether it is an explored path, its holders and its replication; none named, none guessed', () => {
  assert.deepEqual(
    serversOptionsOfTitle(
      'Failover: an explored interleaving of 2 holders × 3 writes (asynchronous replication), 3 steps',
    ),
    { explored: { mode: 'async' }, holders: ['A', 'B'] },
  );
  assert.deepEqual(
    serversOptionsOfTitle(
      'Failover: an explored interleaving of 3 holders × 2 writes (synchronous replication), 6 steps',
    ),
    { explored: { mode: 'sync' }, holders: ['A', 'B', 'C'] },
  );
  // A title that names no replication (an older file, or one edited by hand): the mode is not recorded.
  assert.deepEqual(serversOptionsOfTitle('Failover: an explored interleaving of 2 holders × 3 writes, 3 steps'), {
    explored: { mode: undefined },
    holders: ['A', 'B'],
  });
  // The live lab's file: its three holders.
  assert.deepEqual(serversOptionsOfTitle('Failover'), { holders: ['A', 'B', 'C'] });
});

test('the live lab’s Promote without a kill: the primary still runs beside the promoted standby, and its lease row is its own', () => {
  const events = liveEvents([
    { kind: 'pair_started', mode: 'async' },
    grant('A', '1'),
    write('A', '1', true),
    { kind: 'standby_promoted', row: { value: 'initial', lastToken: '0' }, lease: undefined },
  ]);
  const view = failoverServersAt(events, at(events, 4));
  assert.equal(view.promoted, true);
  assert.equal(server(view, 'primary').running, true);
  assert.deepEqual(server(view, 'primary').row, { value: 'A1', lastToken: '1' });
  assert.deepEqual(server(view, 'primary').lease, { holder: 'A', token: '1', runs: true });
  assert.equal(server(view, 'promoted standby').running, true);
});

test('a sequence past 2^53: a grant is within its last record or past it by the BIGINTs’ order, not as doubles round them', () => {
  // The explorer's catch-up and promotion with the standby's ceiling as pg hands a BIGINT over (text),
  // then a grant on the promoted standby: 2^53 + 4 is past 2^53 + 3, though both are 2^53 + 4 as doubles.
  const promotedThenGranted = (ceiling: string): WireEvent[] => [
    {
      id: 1,
      lab: 'failover',
      at: T0,
      actor: 'cluster',
      kind: 'replication_healed',
      detail: { caughtUp: true, grants: 1, writes: 0, standbyCeiling: ceiling },
    },
    {
      id: 2,
      lab: 'failover',
      at: T0 + STEP_MS,
      actor: 'cluster',
      kind: 'standby_promoted',
      detail: {
        row: { value: 'initial', lastToken: 0 },
        lease: null,
        primaryLastValue: '9007199254740990',
        standbyCeiling: ceiling,
      },
    },
    {
      id: 3,
      lab: 'failover',
      at: T0 + 2 * STEP_MS,
      actor: 'A',
      kind: 'lease_acquired',
      resource: 'lab/failover',
      token: 2 ** 53 + 4,
      detail: { server: 'promoted standby' },
    },
  ];
  const options = { explored: { mode: 'async' as const } };
  const promoted = failoverServersAt(promotedThenGranted('9007199254740995'), T0 + STEP_MS, options);
  assert.deepEqual(server(promoted, 'promoted standby').sequence, { coversUpTo: '9007199254740995' });
  const past = failoverServersAt(promotedThenGranted('9007199254740995'), T0 + 2 * STEP_MS, options);
  assert.deepEqual(server(past, 'promoted standby').sequence, { lastValue: '9007199254740996' });
  const within = failoverServersAt(promotedThenGranted('9007199254741028'), T0 + 2 * STEP_MS, options);
  assert.deepEqual(server(within, 'promoted standby').sequence, {
    lastValue: '9007199254740996',
    coversUpTo: '9007199254741028',
  });
  assert.deepEqual(server(within, 'primary').sequence, { lastValue: '9007199254740990' });
});
