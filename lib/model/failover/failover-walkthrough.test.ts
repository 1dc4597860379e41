import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { WireEvent } from '../core/wire';
import { failoverStepsOf } from './failover-events';
import type { FailoverStep } from './failover-steps';
import { failoverProgress, failoverStepWords, failoverWalkthrough } from './failover-walkthrough';

/*
 * The failover walkthrough's words are read from what the lab recorded: every token and value a
 * step names is in its record; a step not done yet says only what it will do; the verdict lists
 * what the record shows went wrong, and nothing when nothing did. The asynchronous story is a real
 * recorded run (fixtures/failover-async.json); the synchronous one is written out.
 */

const asyncRun = failoverStepsOf(
  JSON.parse(readFileSync(new URL('../fixtures/failover-async.json', import.meta.url), 'utf8')) as WireEvent[],
);

const syncRun: FailoverStep[] = [
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

const wordsAt = (mode: 'async' | 'sync', history: readonly FailoverStep[]) => {
  const walkthrough = failoverWalkthrough(mode);
  return walkthrough.map((_, i) => failoverStepWords(walkthrough, history, i));
};

test('asynchronous: each step names what was recorded, and the verdict the three things that went wrong', () => {
  const words = wordsAt('async', asyncRun);
  assert.ok(words.every((w) => w.done));
  assert.match(words[1]?.text ?? '', /^A was granted the lease with token 1 by the primary/);
  assert.match(words[2]?.text ?? '', /A wrote "A-1" with token 1: the primary accepted it/);
  assert.match(words[4]?.text ?? '', /granted B a newer token, 2,/);
  assert.match(
    words[7]?.text ?? '',
    /row holds "A-1" with token 1; its lease is A’s \(token 1\)\. B’s acknowledged write \("B-1", token 2\) is gone, and so is its grant/,
  );
  assert.match(words[8]?.text ?? '', /A, late, wrote "A-2" with token 1: the promoted standby accepted it/);
  assert.match(
    words[9]?.text ?? '',
    /token 34 .*Another client had been granted token 34 by the old primary: one token granted twice/,
  );
  assert.equal(
    words[10]?.text,
    'What went wrong: B’s acknowledged write ("B-1") lost; A’s stale write (token 1) accepted; token 34 granted twice. The token sequence was not durable: the primary acknowledged what the standby never had.',
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
  assert.match(words[11]?.text ?? '', /^Nothing acknowledged was lost, and A’s late write was rejected/);
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
  assert.ok(wordsAt('async', [...asyncRun, { kind: 'pair_stopped' }]).every((w) => !w.done));
});

test('free play between the steps: a heal before B’s grant, and the words no longer say the standby was cut off', () => {
  const cutAt = asyncRun.findIndex((s) => s.kind === 'replication_cut');
  const healed: FailoverStep[] = [
    ...asyncRun.slice(0, cutAt + 1),
    { kind: 'replication_healed' },
    ...asyncRun.slice(cutAt + 1),
  ];
  const words = wordsAt('async', healed);
  assert.ok(words[4]?.done);
  assert.doesNotMatch(words[4]?.text ?? '', /cut off/);
  assert.doesNotMatch(words[5]?.text ?? '', /cut off/);
  assert.match(wordsAt('async', asyncRun)[4]?.text ?? '', /The standby, cut off, did not receive it/);
});
