import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readSweepForm } from './sweep-form';
import { SWEEP_LIMITS } from './sweep-limits';

const fields = { pauses: '200, 800', ttls: '1000', drifts: '0', concurrency: SWEEP_LIMITS.concurrency.default };

describe('the sweep form read as the server reads it', () => {
  test('a list that is not numbers names the field as the form labels it', () => {
    assert.deepEqual(readSweepForm({ ...fields, pauses: '200, 8OO' }), {
      ok: false,
      error:
        'Pause lengths (ms): "8OO" is not a number; write whole numbers separated by commas, for example 200, 800, 2000',
    });
  });

  test('numbers out of bounds are refused in the schema’s own words, the server’s', () => {
    assert.deepEqual(readSweepForm({ ...fields, pauses: '50' }), {
      ok: false,
      error: 'pause lengths must be at least 100 ms',
    });
  });

  test('fixed fields read as the grid and the runs at once', () => {
    assert.deepEqual(readSweepForm(fields), {
      ok: true,
      input: {
        grid: { pausesMs: [200, 800], ttlsMs: [1000], driftsPercent: [0] },
        concurrency: SWEEP_LIMITS.concurrency.default,
      },
    });
  });
});
