import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../../testing/histories';
import type { WireEvent } from '../core/wire';
import { clientPauseSteps, clientStoryFacts, clientStoryProgress, holdsLease } from './client-pause-story';

/*
 * The pause story with a person's client as A, read from a recorded run: a story that began while A
 * already held its lease (after its first write) still finds the lease that ran out, and its words
 * follow the run from A's freeze to its late write.
 */

const events = recorded('fenced');
const firstWrite = events.find((e) => e.actor === 'A' && e.kind === 'write_accepted') as WireEvent;
const upTo = (kind: string, actor: string) => {
  const at = events.find((e) => e.id > firstWrite.id && e.actor === actor && e.kind === kind) as WireEvent;
  return events.filter((e) => e.id <= at.id);
};

test('a story that began while A held its lease: every step done, its end in words', () => {
  const facts = clientStoryFacts(events, firstWrite.id, 'fenced');
  assert.ok(facts.expiryA, "the lease A held when the story began is the one that ran out (A's grant before the mark)");
  assert.ok(
    clientPauseSteps('fenced').every((step) => step.done(facts)),
    'every step of the story is done at the end of the run',
  );
  assert.deepEqual(
    clientPauseSteps('fenced').map((step) => step.id),
    ['a-holds', 'a-freezes', 'a-expires', 'b-takes-over', 'a-wakes', 'the-row'],
  );
  assert.equal(
    clientStoryProgress(facts),
    `A resumed: its late write with token ${facts.lateWriteA?.token} was refused as stale, and the row keeps B's value.`,
  );
  assert.equal(facts.resetSince, false);
});

test('the words follow the run as it is recorded', () => {
  const at = (part: readonly WireEvent[]) => clientStoryProgress(clientStoryFacts(part, firstWrite.id, 'fenced'));
  assert.equal(
    at(events.filter((e) => e.id <= firstWrite.id)),
    'A holds the lease; freezing it before its next write…',
  );
  assert.equal(at(upTo('pause_started', 'A')), 'A is frozen; B takes over once its lease runs out…');
  assert.equal(at(upTo('lease_expired', 'A')), 'A is frozen and its lease ran out; B takes over…');
  assert.equal(at(upTo('pause_ended', 'A')), 'A resumed; waiting for its late write…');
});

test('A holds the lease by its last lease event; a history without the story’s first event was reset', () => {
  assert.equal(
    holdsLease(
      events.filter((e) => e.id <= firstWrite.id),
      'A',
    ),
    true,
  );
  assert.equal(holdsLease(upTo('lease_expired', 'A'), 'A'), false);
  assert.equal(holdsLease([], 'A'), false);
  const after = events.filter((e) => e.id > firstWrite.id);
  const reset = clientStoryFacts(after, firstWrite.id, 'fenced');
  assert.equal(reset.resetSince, true);
  assert.equal(clientStoryProgress(reset), 'The lab was reset: the story stops.');
});
