import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { E2E_SPEC_SECONDS, specName, splitSpecs, UNLISTED_SECONDS } from './e2e-halves';

const specs = readdirSync('e2e')
  .filter((f) => f.endsWith('.spec.ts'))
  .map((f) => `e2e/${f}`);
const timeOf = (file: string) => E2E_SPEC_SECONDS[specName(file)] ?? UNLISTED_SECONDS;
const sum = (files: readonly string[]) => files.reduce((n, f) => n + timeOf(f), 0);

test('the table of e2e times names only spec files there are', () => {
  const names = new Set(specs.map(specName));
  assert.deepEqual(
    Object.keys(E2E_SPEC_SECONDS).filter((name) => !names.has(name)),
    [],
    'a spec file renamed or removed: its line in lib/testing/e2e-halves.ts goes too',
  );
});

test('two halves hold every spec file once, end within the longest file of each other, and split the same way every time', () => {
  const [one = [], two = []] = splitSpecs(specs, 2);
  assert.deepEqual([...one, ...two].sort(), [...specs].sort());
  const longest = Math.max(...specs.map(timeOf));
  assert.ok(Math.abs(sum(one) - sum(two)) <= longest, `${sum(one)} s against ${sum(two)} s`);
  assert.deepEqual(splitSpecs([...specs].reverse(), 2), [one, two], 'the order the files were read in changes nothing');
  // One part is every file, in name order.
  assert.deepEqual(splitSpecs(specs, 1), [[...specs].sort()]);
});

test('the split can fail: it balances by time, not by count', () => {
  const files = ['e2e/a.spec.ts', 'e2e/b.spec.ts', 'e2e/c.spec.ts', 'e2e/d.spec.ts'];
  const [one, two] = splitSpecs(files, 2, { a: 100, b: 10, c: 10, d: 10 });
  assert.deepEqual(one, ['e2e/a.spec.ts']);
  assert.deepEqual(two, ['e2e/b.spec.ts', 'e2e/c.spec.ts', 'e2e/d.spec.ts']);
});
