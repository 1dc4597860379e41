import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { sweepInput } from '../sweep/sweep-grid';
import { fieldInWords, issueInWords } from './input-words';

const words = (schema: z.ZodType, raw: unknown) => issueInWords(schema.safeParse(raw).error?.issues[0]);

test("a schema's own message names its field and is kept, without the path into the payload", () => {
  const said = words(sweepInput, { grid: { pausesMs: [50], ttlsMs: [500] } });
  assert.equal(said, 'pause lengths must be at least 100 ms');
  assert.doesNotMatch(said, /grid|pausesMs|\.0/);
});

test("zod's default messages become the field's name and the rule", () => {
  const schema = z.object({ labId: z.string(), pauseMs: z.number(), steps: z.array(z.number()) }).strict();
  assert.equal(words(schema, { pauseMs: 1, steps: [] }), 'lab id is missing');
  assert.equal(words(schema, { labId: 'x', pauseMs: 'soon', steps: [] }), 'pause (ms) must be a number');
  assert.equal(words(schema, { labId: 'x', pauseMs: 1, steps: ['a'] }), 'steps must be a number');
  assert.equal(
    words(schema, { labId: 'x', pauseMs: 1, steps: [], extra: 1 }),
    'the input has a field it does not take: extra',
  );
  assert.equal(words(schema, 'text'), 'the input must be a set of fields');
});

test('field names read as words', () => {
  assert.equal(fieldInWords(['grid', 'driftsPercent', 2]), 'drifts (%)');
  assert.equal(fieldInWords([]), 'the input');
});
