import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventKind } from '../core/events';
import type { WireEvent } from '../core/wire';
import { type ClientLane, clientFaults, clientLaneFaults, clientLanes } from './client-faults';

/** A run as a list of [actor, kind, token]: ids and times in order. */
function run(...steps: Array<[string, EventKind, number?]>): WireEvent[] {
  return steps.map(([actor, kind, token], i) => ({
    id: i + 1,
    lab: 'lab',
    at: 1_000 * (i + 1),
    actor,
    kind,
    ...(token === undefined ? {} : { token }),
    detail: {},
  }));
}

const kinds = (events: WireEvent[], actor = 'A') => clientFaults(events, actor).map((f) => `${f.kind} ${f.token}`);

test('a client that does as it should: no fault, frozen past its lease and refused included', () => {
  const events = run(
    ['A', 'lease_acquired', 7],
    ['A', 'write_sent', 7],
    ['A', 'write_accepted', 7],
    ['A', 'lease_renewed', 7],
    ['A', 'write_sent', 7],
    ['A', 'pause_started', 7],
    ['A', 'lease_expired', 7],
    ['B', 'lease_acquired', 8],
    ['B', 'write_accepted', 8],
    ['A', 'pause_ended'],
    ['A', 'write_rejected', 7],
    ['A', 'lease_lost', 7],
    ['A', 'lease_acquired', 9],
    ['A', 'write_sent', 9],
    ['A', 'write_accepted', 9],
  );
  assert.deepEqual(kinds(events), []);
  assert.deepEqual(kinds(events, 'B'), []);
});

test('a token it was never granted: its own counter', () => {
  const events = run(
    ['A', 'lease_acquired', 7],
    ['A', 'write_sent', 1],
    ['A', 'write_accepted', 1],
    ['A', 'write_sent', 2],
  );
  assert.deepEqual(kinds(events), ['ungranted-token 1']);
  assert.match(
    clientFaults(events, 'A')[0]?.words ?? '',
    /token 1, which the lease service never granted it \(it was granted 7\)/,
  );
});

test('writing on after a refusal, until it takes the lease again', () => {
  const events = run(
    ['A', 'lease_acquired', 7],
    ['A', 'write_rejected', 7],
    ['A', 'write_sent', 7],
    ['A', 'write_rejected', 7],
    ['A', 'lease_acquired', 9],
    ['A', 'write_sent', 9],
  );
  assert.deepEqual(kinds(events), ['wrote-after-refusal 7']);
});

test('a lease never renewed, run out while the client ran, written under after', () => {
  const events = run(
    ['A', 'lease_acquired', 7],
    ['A', 'write_sent', 7],
    ['A', 'lease_expired', 7],
    ['A', 'write_sent', 7],
    ['A', 'write_accepted', 7],
  );
  assert.deepEqual(kinds(events), ['never-renewed 7']);
  // Renewed once, or frozen when it ran out: not this fault.
  const renewed = run(
    ['A', 'lease_acquired', 7],
    ['A', 'lease_renewed', 7],
    ['A', 'lease_expired', 7],
    ['A', 'write_sent', 7],
  );
  assert.deepEqual(kinds(renewed), []);
  const frozen = run(
    ['A', 'lease_acquired', 7],
    ['A', 'pause_started', 7],
    ['A', 'lease_expired', 7],
    ['A', 'pause_ended'],
    ['A', 'write_sent', 7],
  );
  assert.deepEqual(kinds(frozen), []);
});

test("a person's own programs as lanes: named by their start, ended by their stop", () => {
  const events = run(
    ['A', 'worker_started'],
    ['B', 'worker_started'],
    ['C', 'worker_started'],
    ['A', 'worker_stopped'],
  );
  (events[0] as WireEvent).detail = { exec: 'python3 worker.py' };
  (events[2] as WireEvent).detail = { exec: 'bash worker.sh' };
  assert.deepEqual(clientLanes(events), [
    { actor: 'A', program: 'python3 worker.py', running: false, fromId: 1, toId: 4 },
    { actor: 'C', program: 'bash worker.sh', running: true, fromId: 3 },
  ]);
  assert.deepEqual(clientLanes(events.slice(0, 3)).at(0), {
    actor: 'A',
    program: 'python3 worker.py',
    running: true,
    fromId: 1,
  });
});

test("a lane's faults are its program's only: our worker under the same name, before or after it, is not blamed", () => {
  // Our A (a counter of its own: token 1 never granted) first, then A as a person's program that does right.
  const events = run(
    ['A', 'worker_started'],
    ['A', 'write_accepted', 1],
    ['A', 'worker_stopped'],
    ['A', 'worker_started'],
    ['A', 'lease_acquired', 7],
    ['A', 'write_accepted', 7],
    ['A', 'worker_started'],
    ['A', 'write_accepted', 2],
  );
  (events[3] as WireEvent).detail = { exec: 'python3 worker.py' };
  const [lane] = clientLanes(events);
  assert.deepEqual(lane, { actor: 'A', program: 'python3 worker.py', running: false, fromId: 4, toId: 6 });
  assert.deepEqual(clientLaneFaults(events, lane as ClientLane), []);
  assert.equal(clientFaults(events, 'A').length, 1, 'over the whole history, our counter is a fault');
});
