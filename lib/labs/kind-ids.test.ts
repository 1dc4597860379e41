import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import ts from 'typescript';
import { sourceFiles } from '../testing/source-files';
import { LAB_IDS } from './index';

/*
 * One place per lab kind (issue 21): a kind's id is written only in its own definition,
 * lib/labs/<kind>.ts. Everywhere else code asks the kind's traits, so a new kind is one file, not a
 * tour of the code. The scan reads every string of the product's non-test source (comments are not
 * code), SQL inside strings included.
 */

const PRODUCT_ROOTS = ['app', 'components', 'lib', 'db', 'bench'];

/*
 * Strings that equal a kind's id but name something else. An entry that no longer matches fails
 * the test, so the list only shrinks.
 */
const SWEEP_AXIS = "the sweep's fencing axis ('unfenced' | 'fenced') and its word for a cell, not the kind";
const ALLOWED: { file: string; id: string; why: string }[] = [
  {
    file: 'db/broken-labs.ts',
    id: 'fenced',
    why: 'a write mode of lab_kind_writes (the right statement), not the kind',
  },
  {
    file: 'lib/model/explore/explore-labs.ts',
    id: 'fenced',
    why: "the explorer's write mode of fl_broken_write (lab_kind_writes' right statement), not the kind",
  },
  {
    file: 'db/explore.ts',
    id: 'fenced',
    why: "fl_may_write's 'fenced' policy, whose branch a planted bug replaces, not the kind",
  },
  { file: 'lib/model/sweep/sweep-grid.ts', id: 'fenced', why: SWEEP_AXIS },
  { file: 'lib/model/sweep/sweep-cell.ts', id: 'fenced', why: SWEEP_AXIS },
  { file: 'lib/model/sweep/sweep-heatmap.ts', id: 'fenced', why: SWEEP_AXIS },
  { file: 'lib/scenario/sweep.ts', id: 'fenced', why: SWEEP_AXIS },
];

const isProduct = (file: string) =>
  !/\.test\.tsx?$/.test(file) &&
  !file.startsWith('lib/testing/') &&
  !/^lib\/labs\/(?!index|traits|define)[^/]+\.ts$/.test(file);

/** Each kind id a source's strings name: a string that is the id, or one that quotes it ('id', "id"). */
function kindIdsIn(source: string, fileName = 'x.tsx'): string[] {
  const kind = fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, kind);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      const text = node.text;
      for (const id of LAB_IDS) {
        if (text === id || text.includes(`'${id}'`) || text.includes(`"${id}"`)) found.push(id);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

async function productFiles(): Promise<string[]> {
  return (await Promise.all(PRODUCT_ROOTS.map(sourceFiles))).flat().filter(isProduct);
}

test("a lab kind's id is written only in its own definition, lib/labs/<kind>.ts", async () => {
  const found: { file: string; id: string }[] = [];
  for (const file of await productFiles()) {
    for (const id of new Set(kindIdsIn(await readFile(file, 'utf8'), file))) found.push({ file, id });
  }
  const allowed = (f: { file: string; id: string }) => ALLOWED.some((a) => a.file === f.file && a.id === f.id);
  assert.deepEqual(
    found.filter((f) => !allowed(f)).map((f) => `${f.file}: '${f.id}'`),
    [],
    'ask the kind a trait (lib/labs/traits.ts) instead of naming it',
  );
  const stale = ALLOWED.filter((a) => !found.some((f) => f.file === a.file && f.id === a.id));
  assert.deepEqual(stale, [], 'allowed ids that are gone: remove them from ALLOWED');
});

test('the scan finds an id in code and in SQL, and not in a comment or a trait', () => {
  assert.deepEqual(kindIdsIn("if (lab.kind === 'your-guard') drop();"), ['your-guard']);
  assert.deepEqual(kindIdsIn('const x = { "no-fencing": 1 };'), ['no-fencing']);
  const sql = "q(`SELECT 1 FROM labs WHERE kind = 'bypass' AND n = $" + '{n}`);';
  assert.deepEqual(kindIdsIn(sql), ['bypass']);
  assert.deepEqual(kindIdsIn("const t = 'the drifting clock';"), []);
  assert.deepEqual(kindIdsIn("// the 'fenced' lab\n/* 'failover' */ const p = <p>B's 'value'</p>;"), []);
  assert.deepEqual(kindIdsIn("if (LABS[kind].traits.transport === 'packet-relay') hold();"), []);
});
