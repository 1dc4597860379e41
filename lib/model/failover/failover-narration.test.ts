import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { failoverHistory } from '../../testing/failover-histories';
import type { WireEvent } from '../core/wire';
import { falseFailoverClaims, falseFailoverNarration } from './failover-narration-oracle';
import { failoverStepWords, failoverWalkthrough } from './failover-walkthrough';

/*
 * Every sentence the failover walkthrough can say, held to the events, over generated histories
 * (lib/testing/failover-histories.ts: both modes, free play between the story's steps, replication
 * cut and healed again, the sequence read or not, the pair stopped): at every moment of each
 * history, every step done is narrated and the failover narration oracle reads back each token,
 * value, server, outcome, comparison, sequence reading and the verdict. Also the recorded real run,
 * and planted false sentences the oracle must catch.
 */

const HISTORIES = 1_000;

test(`no false failover sentence at any moment of ${HISTORIES} generated histories`, { timeout: 120_000 }, () => {
  let sentences = 0;
  fc.assert(
    fc.property(failoverHistory(), (events) => {
      const checked = falseFailoverNarration(events);
      sentences += checked.sentences;
      assert.deepEqual(checked.wrong, []);
    }),
    { numRuns: HISTORIES, seed: 34 },
  );
  assert.ok(sentences > 10 * HISTORIES, `${sentences} sentences read`);
});

test('the generated histories tell every ending: a write lost or kept, a token granted twice or not, A late refused or let through', () => {
  const endings = new Set<string>();
  for (const events of fc.sample(failoverHistory(), { numRuns: 400, seed: 34 })) {
    const mode = events[0]?.detail.mode === 'sync' ? 'sync' : 'async';
    const walkthrough = failoverWalkthrough(mode);
    const words = failoverStepWords(walkthrough, events, walkthrough.length - 1);
    if (!words.done) continue;
    endings.add(`${mode} ${words.text.includes('SAFE:') && !words.text.includes('UNSAFE') ? 'safe' : 'unsafe'}`);
    const promote = failoverStepWords(walkthrough, events, walkthrough.length - 4).text;
    endings.add(promote.includes('is gone') ? 'lost' : 'kept');
  }
  for (const ending of ['async safe', 'async unsafe', 'sync safe', 'lost', 'kept'])
    assert.ok(endings.has(ending), `no generated history ends ${ending}: ${[...endings].join(', ')}`);
});

const asyncRun = JSON.parse(
  readFileSync(new URL('../fixtures/failover-async.json', import.meta.url), 'utf8'),
) as WireEvent[];

test('the recorded real run says only true things at every moment', () => {
  const { wrong, sentences } = falseFailoverNarration(asyncRun);
  assert.deepEqual(wrong, []);
  assert.ok(sentences > 40, `${sentences} sentences read`);
});

test('the oracle catches a planted false sentence: a token, a server, an outcome, a comparison, a reading, the verdict', () => {
  const walkthrough = failoverWalkthrough('async');
  const said = (i: number) => failoverStepWords(walkthrough, asyncRun, i).text;
  const plants: Array<[number, string, string]> = [
    [1, 'with token 1 by the primary', 'with token 9 by the primary'],
    [1, 'with token 1 by the primary', 'with token 1 by the promoted standby'],
    [2, 'the primary accepted it', 'the primary rejected it as stale, its row holding token 2'],
    [2, 'Replication was running', 'Replication was cut: the standby did not receive it'],
    [4, 'B token 2, newer than A’s 1', 'B token 2, older than A’s 1'],
    [4, 'The primary granted B', 'The promoted standby granted B'],
    [7, 'holds "A-1" with token 1', 'holds "B-1" with token 2'],
    [7, 'is gone, and so is its grant', 'is gone'],
    [8, 'the promoted standby accepted it', 'the promoted standby rejected it as stale, its row holding token 2'],
    [10, 'UNSAFE: 3 violations', 'SAFE: no violation'],
  ];
  for (const [i, truth, lie] of plants) {
    const text = said(i);
    assert.ok(text.includes(truth), `step ${i + 1} says ${JSON.stringify(truth)}: ${text}`);
    assert.deepEqual(falseFailoverClaims(text, asyncRun), [], `step ${i + 1} as told`);
    assert.notDeepEqual(falseFailoverClaims(text.replace(truth, lie), asyncRun), [], `step ${i + 1}: ${lie}`);
  }
});
