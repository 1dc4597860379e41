import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { issueInWords } from '../model/core/input-words';
import { labInput, pauseWorkerInput } from '../model/lab/lab-inputs';
import { allSourceFiles } from './source-files';

/*
 * A house rule: an input's schema refuses a field it does not take (issue 33: `__proto__` went
 * through). Every zod object in the house is strict: `z.strictObject(…)` or `z.object(…).strict()`,
 * never `z.looseObject` or `.passthrough()`, and an unknown field is refused in words ("the input
 * has a field it does not take: …", lib/model/core/input-words.ts). The few objects that are not
 * inputs a person or a script sends are listed with why. (A server action's `__proto__` never
 * reaches its schema: React drops it while decoding, so the request hook refuses it first,
 * lib/model/core/request-shape.ts.)
 */

const NOT_STRICT: { file: string; count: number; why: string }[] = [
  {
    file: 'lib/server/compare-sources.ts',
    count: 1,
    why: "a page's query string: other parameters in a shared link are ignored, as the page ignores an id it may not show",
  },
];

/** The text after the `(` that opens at `open`, up to its matching `)`: where the object's call ends. */
function afterCall(source: string, open: number): string {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    if (source[i] === '(') depth++;
    else if (source[i] === ')' && --depth === 0) return source.slice(i + 1);
  }
  return '';
}

export function looseObjects(source: string): number {
  let loose = 0;
  for (const match of source.matchAll(/\bz\.object\(/g)) {
    const rest = afterCall(source, match.index + match[0].length - 1);
    if (!/^\s*\.strict\(\)/.test(rest)) loose++;
  }
  return loose + [...source.matchAll(/\bz\.looseObject\(|\.passthrough\(\)/g)].length;
}

test('looseObjects counts z.object without .strict(), looseObject and passthrough', () => {
  assert.equal(looseObjects('z.object({ a: z.string().max(3) }).strict()'), 0);
  assert.equal(looseObjects('z.object({\n  a: z.string(),\n})\n  .strict();'), 0);
  assert.equal(looseObjects('z.strictObject({ a: z.string() })'), 0);
  assert.equal(looseObjects('z.object({ a: z.string() })'), 1);
  assert.equal(looseObjects('z.object({ a: z.object({ b: z.number() }) }).strict()'), 1);
  assert.equal(looseObjects('z.looseObject({}); x.passthrough()'), 2);
});

test('every zod object in the house refuses fields it does not take (but the listed ones)', async () => {
  const found = new Map<string, number>();
  for (const file of await allSourceFiles()) {
    if (file.endsWith('.test.ts') || file === 'lib/testing/strict-inputs.test.ts') continue;
    const count = looseObjects(await readFile(file, 'utf8'));
    if (count) found.set(file, count);
  }
  const allowed = new Map(NOT_STRICT.map((entry) => [entry.file, entry.count]));
  assert.deepEqual(Object.fromEntries(found), Object.fromEntries(allowed));
});

test('an unknown field, __proto__ among them, is refused in words, nested too', () => {
  const refused = (
    schema: { safeParse(v: unknown): { success: boolean; error?: { issues: unknown[] } } },
    json: string,
  ) => {
    const parsed = schema.safeParse(JSON.parse(json));
    assert.equal(parsed.success, false, json);
    return issueInWords(parsed.error?.issues[0] as Parameters<typeof issueInWords>[0]);
  };
  assert.equal(
    refused(pauseWorkerInput, '{"lab":"fenced","worker":"A","plan":{"mode":"until-resumed"},"__proto__":{"x":1}}'),
    'the input has a field it does not take: __proto__',
  );
  assert.match(
    refused(pauseWorkerInput, '{"lab":"fenced","worker":"A","plan":{"mode":"until-resumed","__proto__":null}}'),
    /has a field it does not take: __proto__$/,
  );
  assert.match(refused(labInput, '{"lab":"fenced","extra":1}'), /does not take: extra$/);
});
