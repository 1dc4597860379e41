import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FencingError, isFencingError } from './errors';

test('a FencingError made by another copy of this module is still told apart, by its code', async () => {
  // Next bundles lib/model/core/errors.ts more than once; a query string makes Node load a second copy.
  const copy = (await import(`./errors.ts?copy=${Date.now()}`)) as typeof import('./errors');
  assert.notEqual(copy.FencingError, FencingError, 'the test needs a second class');
  const error = new copy.FencingError('invalid_input', 'there is already a worker named "A"');
  assert.equal(isFencingError(error), true);
  assert.equal(isFencingError(error, 'invalid_input'), true);
  assert.equal(isFencingError(error, 'forbidden'), false);
});

test('an Error that only looks like one is not a FencingError', () => {
  const lookalike = Object.assign(new Error('x'), { name: 'FencingError', code: 'invalid_input' });
  assert.equal(isFencingError(lookalike), false);
  assert.equal(isFencingError(null), false);
  assert.equal(isFencingError('invalid_input'), false);
});
