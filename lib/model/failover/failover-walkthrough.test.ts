import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { WireEvent } from '../core/wire';
import { failoverEvent } from './failover-events';
import type { FailoverStep } from './failover-steps';
import { failoverProgress, failoverReached, failoverStepWords, failoverWalkthrough } from './failover-walkthrough';

/*
 * The failover walkthrough's words are read from what the lab recorded: every token and value a
 * step names is in its record; a step not done yet says only what it will do; the verdict lists
 * what the record shows went wrong, and nothing when nothing did. The asynchronous story is a real
 * recorded run (fixtures/failover-async.json); the synchronous one is written out.
 */

const asyncRun = JSON.parse(
  readFileSync(new URL('../fixtures/failover-async.json', import.meta.url), 'utf8'),
) as WireEvent[];

/** Steps written out, as the lab records them: one event each, 10 ms apart. */
const eventsOf = (steps: readonly FailoverStep[], from = 1): WireEvent[] =>
  steps.map((step, i) => ({ ...failoverEvent(step), id: from + i, at: 1_000_000 + (from + i) * 10 }) as WireEvent);

const syncSteps: FailoverStep[] = [
  { kind: 'pair_started', mode: 'sync' },
  { kind: 'grant', holder: 'A', resource: 'lab/failover', token: '5', server: 'primary' },
  { kind: 'write', holder: 'A', token: '5', value: 'A-1', server: 'primary', accepted: true },
  { kind: 'replication_cut' },
  { kind: 'grant_waiting', holder: 'B', waitedMs: 1500 },
  { kind: 'replication_healed' },
  { kind: 'grant', holder: 'B', resource: 'lab/failover', token: '6', server: 'primary' },
  { kind: 'write', holder: 'B', token: '6', value: 'B-1', server: 'primary', accepted: true },
  { kind: 'primary_killed', sequence: { primaryLastValue: '6', standbyCeiling: '38' } },
  {
    kind: 'standby_promoted',
    row: { value: 'B-1', lastToken: '6' },
    lease: { resource: 'lab/failover', holder: 'B', token: '6' },
  },
  { kind: 'write', holder: 'A', token: '5', value: 'A-2', server: 'promoted standby', accepted: false, rowToken: '6' },
  { kind: 'grant', holder: 'C', resource: 'lab/failover', token: '39', server: 'promoted standby' },
];
const syncRun = eventsOf(syncSteps);

const wordsAt = (mode: 'async' | 'sync', history: readonly WireEvent[]) => {
  const walkthrough = failoverWalkthrough(mode);
  return walkthrough.map((_, i) => failoverStepWords(walkthrough, history, i));
};

test('asynchronous: each step names what was recorded, and the verdict the three things that went wrong', () => {
  const words = wordsAt('async', asyncRun);
  assert.ok(words.every((w) => w.done));
  assert.match(words[1]?.text ?? '', /^A was granted the lease with token 1 by the primary/);
  assert.match(words[2]?.text ?? '', /A wrote "A-1" with token 1: the primary accepted it/);
  assert.match(words[4]?.text ?? '', /^The primary granted B token 2, newer than A’s 1, and acknowledged it at once\./);
  assert.match(
    words[7]?.text ?? '',
    /row holds "A-1" with token 1; its lease is A’s \(token 1\)\. B’s acknowledged write \("B-1", token 2\) is gone, and so is its grant/,
  );
  assert.match(words[8]?.text ?? '', /A, late, wrote "A-2" with token 1: the promoted standby accepted it/);
  assert.match(
    words[9]?.text ?? '',
    /token 34 .*Another client had been granted token 34 by the old primary: one token granted twice/,
  );
  // The verdict is the one checker's, on the story's events: the banner's line, then each finding.
  const verdict = words[10]?.text ?? '';
  assert.match(verdict, /^The checker’s verdict: UNSAFE: 3 violations in 3 writes and 43 grants\. /);
  assert.match(
    verdict,
    /Acknowledged write lost: B's write "B-1" \(token 2\), acknowledged at [\d:.]+, is not on the promoted standby/,
  );
  assert.match(
    verdict,
    /Stale write accepted: A wrote "A-2" with token 1 at [\d:.]+, after B's write "B-1" with the newer token 2/,
  );
  assert.match(verdict, /Acknowledged grant lost: B's lease of lab\/failover \(token 2\)/);
  assert.match(verdict, /Token 34 granted twice: to others at [\d:.]+ and to C at [\d:.]+\./);
  assert.match(verdict, /Fencing cannot refuse what the database forgot/);
  // The kill and the cut name the sequence as the events recorded it.
  assert.match(
    words[6]?.text ?? '',
    /It had handed out tokens up to \d+; the standby’s copy of the sequence covers up to \d+\./,
  );
});

test('synchronous: B’s grant waits, then goes through; nothing acknowledged is lost and A is rejected', () => {
  const words = wordsAt('sync', syncRun);
  assert.equal(failoverProgress(failoverWalkthrough('sync'), syncRun), 11);
  assert.ok(words.every((w) => w.done));
  assert.match(words[4]?.text ?? '', /after 1500 ms it still waited for the standby/);
  assert.match(words[5]?.text ?? '', /B holds token 6, and so does the standby/);
  assert.match(
    words[7]?.text ?? '',
    /It had handed out tokens up to 6; the standby’s copy of the sequence covers up to 38/,
  );
  assert.match(words[8]?.text ?? '', /B’s acknowledged write is there\./);
  assert.match(words[9]?.text ?? '', /rejected it as stale, its row holding token 6/);
  assert.match(words[10]?.text ?? '', /token 39 .*No one was granted it before/);
  assert.match(
    words[11]?.text ?? '',
    /^The checker’s verdict: SAFE: no violation in 2 writes and 3 grants\. The promoted standby had every acknowledged write and grant, no token was granted twice, and A’s late write was rejected/,
  );
});

test('a step not done yet says what it will do, never a token or value it has not recorded', () => {
  const history = asyncRun.slice(0, 3); // started, A's grant, A's write
  const words = wordsAt('async', history);
  assert.deepEqual(
    words.map((w) => w.done),
    words.map((_, i) => i < 3),
  );
  for (const w of words.slice(3)) assert.doesNotMatch(w.text, /token \d|"[AB]-\d"/, w.text);
  // The verdict is said once every step has run, not before.
  assert.equal(wordsAt('async', asyncRun.slice(0, -1)).at(-1)?.done, false);
  // A stopped pair's story is over: the walkthrough starts again.
  assert.ok(wordsAt('async', [...asyncRun, ...eventsOf([{ kind: 'pair_stopped' }], 51)]).every((w) => !w.done));
});

test('free play between the steps: a heal before B’s grant, and the words no longer say the standby was cut off', () => {
  const cutAt = asyncRun.findIndex((s) => s.kind === 'replication_cut');
  const heal = { ...eventsOf([{ kind: 'replication_healed' }])[0], id: 4.5 } as WireEvent;
  const healed: WireEvent[] = [...asyncRun.slice(0, cutAt + 1), heal, ...asyncRun.slice(cutAt + 1)];
  const words = wordsAt('async', healed);
  assert.ok(words[4]?.done);
  assert.doesNotMatch(words[4]?.text ?? '', /cut off/);
  assert.doesNotMatch(words[5]?.text ?? '', /cut off/);
  assert.match(wordsAt('async', asyncRun)[4]?.text ?? '', /The standby, cut off, did not receive it/);
});

test('a step is told as of its moment: what happened after it changes neither its words nor the verdict', () => {
  const walkthrough = failoverWalkthrough('async');
  // Free play after the story: C writes on the promoted standby, and takes the lease again with
  // token 35, which the old primary had handed out too (a fourth violation, after the verdict's moment).
  const later = eventsOf(
    [
      { kind: 'write', holder: 'C', token: '34', value: 'C-1', server: 'promoted standby', accepted: true },
      { kind: 'grant', holder: 'C', resource: 'lab/failover', token: '35', server: 'promoted standby' },
    ],
    51,
  );
  const before = wordsAt('async', asyncRun);
  const after = wordsAt('async', [...asyncRun, ...later]);
  assert.deepEqual(after, before);
  // The promotion's words name the lease the standby had then, not C's later grant.
  assert.match(after[7]?.text ?? '', /its lease is A’s \(token 1\)/);
  assert.doesNotMatch(after[7]?.text ?? '', /34/);
  // Where each prefix of the events stands, for the step's moment: the verdict with the last action.
  const reachedAt = (n: number) => failoverReached(walkthrough, asyncRun.slice(0, n));
  assert.deepEqual([0, 1, 2, 3, 4, 5].map(reachedAt), [0, 0, 1, 2, 3, 4]);
  assert.equal(reachedAt(asyncRun.length - 1), 8, 'before C’s grant: A’s late write, step 9');
  assert.equal(reachedAt(asyncRun.length), 10, 'C’s grant: its step and the verdict, step 11');
  assert.equal(failoverProgress(walkthrough, asyncRun), 10);
});

test('the synchronous heal is done once B’s grant, which waited on it, is recorded', () => {
  const walkthrough = failoverWalkthrough('sync');
  const healAt = syncSteps.findIndex((s) => s.kind === 'replication_healed');
  // Recorded in the other order (the grant's commit reached the page first): the step is the same.
  const swapped = eventsOf([
    ...syncSteps.slice(0, healAt),
    syncSteps[healAt + 1] as FailoverStep,
    syncSteps[healAt] as FailoverStep,
    ...syncSteps.slice(healAt + 2),
  ]);
  assert.equal(failoverProgress(walkthrough, swapped), 11);
  assert.match(failoverStepWords(walkthrough, swapped, 5).text, /B holds token 6, and so does the standby/);
  // The heal alone, B's grant not recorded yet: the step is not told.
  const healedOnly = eventsOf(syncSteps.slice(0, healAt + 1));
  assert.equal(failoverProgress(walkthrough, healedOnly), 5);
  assert.equal(failoverStepWords(walkthrough, healedOnly, 5).done, false);
});

test('each step has its own id, by which the tests find it; the heal is the synchronous story’s only', () => {
  const ids = (mode: 'async' | 'sync') => failoverWalkthrough(mode).map((step) => step.id);
  for (const mode of ['async', 'sync'] as const) assert.equal(new Set(ids(mode)).size, ids(mode).length, mode);
  assert.deepEqual(
    ids('sync').filter((id) => !ids('async').includes(id)),
    ['replication-heals'],
  );
});
