import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closePool } from '../../db/pool';
import { readShownStep } from '../../db/shown-step';
import { clearFailoverHistory } from '../supervisor/failover/failover-history';
import { trainerKey, trainerProofOf } from './access';
import {
  cutReplication,
  grantFailoverLease,
  killFailoverPrimary,
  recordFailoverShownStep,
  startFailoverPair,
  viewFailoverLab,
  writeFailoverRow,
} from './failover-commands';

/*
 * Who may drive the failover lab, and what it takes: the trainer only, plain data only (a mode, a
 * holder's letter), checked before anything starts.
 */

const trainer = { trainerProof: trainerProofOf(trainerKey()) };

test('without the trainer key every control is refused in words and nothing starts', async () => {
  for (const [command, input] of [
    [startFailoverPair, { mode: 'async' }],
    [cutReplication, {}],
    [grantFailoverLease, { holder: 'A' }],
    [writeFailoverRow, { holder: 'B' }],
    [killFailoverPrimary, {}],
  ] as const) {
    const result = await command(input, { ownerSecret: 'a trainee of its own' });
    assert.equal(result.ok, false);
    assert.equal(result.ok ? '' : result.error.code, 'forbidden');
    assert.match(result.ok ? '' : result.error.message, /only the trainer drives the failover lab .* no private ones/);
  }
  const view = await viewFailoverLab({});
  assert.ok(view.ok && view.data.mode === undefined, 'no pair was started');
});

test('bad input is refused before anything starts: no PID, port or path, no unknown holder or mode', async () => {
  for (const [command, input, words] of [
    [startFailoverPair, { mode: 'semi-sync' }, /mode/],
    [startFailoverPair, { mode: 'async', dataDir: '/tmp/x' }, /dataDir|unrecognized/i],
    [grantFailoverLease, { holder: 'D' }, /holder/],
    [writeFailoverRow, { holder: 'A', pid: 1 }, /pid|unrecognized/i],
    [killFailoverPrimary, { port: 5432 }, /port|unrecognized/i],
    [cutReplication, 'cut', /^the input must be a set of fields$/],
  ] as const) {
    const result = await command(input, trainer);
    assert.equal(result.ok ? '' : result.error.code, 'invalid_input', JSON.stringify(input));
    assert.match(result.ok ? '' : result.error.message, words);
  }
  const view = await viewFailoverLab({});
  assert.ok(view.ok && view.data.mode === undefined, 'no pair was started');
});

test('the trainer, before any pair: a control that needs one says to start it', async () => {
  const result = await grantFailoverLease({ holder: 'A' }, trainer);
  assert.deepEqual(result, { ok: false, error: { code: 'invalid_input', message: 'start the pair first' } });
});

test('the step the trainer shows is recorded for the watchers, within the walkthrough; a new story forgets it', async () => {
  after(() => closePool());
  const refused = await recordFailoverShownStep({ step: 2 }, { ownerSecret: 'a trainee of its own' });
  assert.equal(refused.ok ? '' : refused.error.code, 'forbidden');
  for (const [input, words] of [
    [{ step: 12 }, /step must be below 12: the walkthrough has 12 steps/],
    [{ step: -1 }, /step must be 0 or more/],
    [{ step: 1.5 }, /whole number/],
    [{ step: 2, lab: 'fenced' }, /lab|unrecognized/i],
  ] as const) {
    const result = await recordFailoverShownStep(input, trainer);
    assert.equal(result.ok ? '' : result.error.code, 'invalid_input', JSON.stringify(input));
    assert.match(result.ok ? '' : result.error.message, words);
  }
  assert.deepEqual(await recordFailoverShownStep({ step: 11 }, trainer), { ok: true, data: { step: 11 } });
  assert.equal(await readShownStep('failover'), 11);
  // A start clears the last story's events, and the step shown of it with them.
  await clearFailoverHistory();
  assert.equal(await readShownStep('failover'), undefined);
});
