import assert from 'node:assert/strict';
import { access, readdir } from 'node:fs/promises';
import { test } from 'node:test';
import { LAB_IDS, LAB_KINDS, LABS } from './index';
import { compareWith, PRIVATE_LAB_KINDS, WORKER_LAB_IDS } from './traits';

/* The registry holds each kind once, each in the file named after it. */

test('each kind is one file, lib/labs/<id>.ts, and the registry lists every such file once', async () => {
  const files = (await readdir(new URL('./', import.meta.url)))
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => name.replace(/\.ts$/, ''))
    .filter((name) => !['index', 'traits', 'define'].includes(name));
  assert.deepEqual([...files].sort(), [...LAB_IDS].sort());
  assert.equal(new Set(LAB_IDS).size, LAB_IDS.length);
  for (const id of LAB_IDS) {
    const module = (await import(`./${id}.ts`)) as Record<string, { id: string }>;
    assert.deepEqual(
      Object.values(module).map((definition) => definition.id),
      [id],
      `lib/labs/${id}.ts exports its own definition only`,
    );
  }
});

test("each kind's counterpart is another kind, and its story module exists", async () => {
  for (const kind of LAB_KINDS) {
    const other = compareWith(kind.id).lab;
    assert.ok(LAB_IDS.includes(other) && other !== kind.id, `${kind.id} compares with ${other}`);
    if (kind.narration) await access(new URL(`../../${kind.narration}`, import.meta.url));
  }
});

test('shared labs have rows of their own; a fenced verdict goes with an empty failure', () => {
  const shared = LAB_KINDS.filter((kind) => kind.traits.visibility !== 'private-only');
  const rows = shared.map((kind) => `${kind.table}:${kind.rowId}`);
  assert.equal(new Set(rows).size, rows.length);
  for (const kind of LAB_KINDS) {
    assert.equal(kind.resource, `lab/${kind.id}`);
    if (kind.checker.verdict === 'holds') assert.equal(kind.failure, '', kind.id);
    if (kind.checker.verdict === 'breaks') assert.ok(kind.failure && kind.checker.rule, kind.id);
  }
  assert.ok(WORKER_LAB_IDS.every((id) => PRIVATE_LAB_KINDS.includes(id)));
  assert.equal(LABS[WORKER_LAB_IDS[0]].checker.verdict, 'holds', 'the first lab listed is a fenced one');
});
