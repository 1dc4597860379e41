import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import {
  exploreSettings,
  guardConstants,
  lateWrites,
  MAX_EXPLORE_SETTINGS,
  MAX_STALE_WRITERS,
  settingsWords,
  staleWriters,
  triedWords,
} from './guard-probes';

/** `$1 = 'let-me-in' OR $2 = 42 OR $2 = 0`, as libpg-query's tree holds its constants (0 is an empty ival). */
const TREE = {
  stmts: [
    {
      stmt: {
        UpdateStmt: {
          whereClause: {
            BoolExpr: {
              args: [
                { A_Expr: { lexpr: { ParamRef: { number: 1 } }, rexpr: { A_Const: { sval: { sval: 'let-me-in' } } } } },
                { A_Expr: { lexpr: { ParamRef: { number: 2 } }, rexpr: { A_Const: { ival: { ival: 42 } } } } },
                { A_Expr: { lexpr: { ParamRef: { number: 2 } }, rexpr: { A_Const: { ival: {} } } } },
              ],
            },
          },
        },
      },
    },
  ],
};

describe("the attack's probes: what the statement names", () => {
  it('reads the string and number constants of the tree', () => {
    assert.deepEqual(guardConstants(TREE), { values: ['let-me-in'], tokens: [42, 0] });
  });

  it('puts stale writers at 9 and at each number and its neighbours, ascending, the values riding on them', () => {
    assert.deepEqual(staleWriters({ values: ['let-me-in'], tokens: [42, 0] }), [
      { token: 1, value: 'let-me-in' },
      { token: 9 },
      { token: 41 },
      { token: 42 },
      { token: 43 },
    ]);
    assert.deepEqual(staleWriters({ values: [], tokens: [] }), [{ token: 9 }]);
    assert.ok(staleWriters({ values: [], tokens: [1, 100, 1000, 10_000] }).length <= MAX_STALE_WRITERS);
  });

  it('adds a stale writer for each value left over, and says what the late writes sent', () => {
    assert.deepEqual(staleWriters({ values: ['x', 'y'], tokens: [] }), [
      { token: 9, value: 'x' },
      { token: 10, value: 'y' },
    ]);
    const sent = lateWrites([
      { id: 1, actor: 'A', kind: 'write_accepted', token: 9, detail: { value: 'x' } },
      { id: 2, actor: 'A', kind: 'pause_ended', detail: {} },
      { id: 3, actor: 'B', kind: 'write_accepted', token: 10, detail: { value: 'B-1' } },
      { id: 4, actor: 'A', kind: 'write_rejected', token: 9, detail: { value: 'x' } },
      { id: 5, actor: 'A', kind: 'write_rejected', token: 9, detail: { value: 'x' } },
    ]);
    assert.deepEqual(sent, [{ token: 9, value: 'x' }]);
    assert.equal(triedWords(sent, ['x']), "token 9; the value 'x'");
    assert.equal(
      triedWords(
        [
          { token: 9, value: 'A-1' },
          { token: 42, value: 'C-1' },
        ],
        [],
      ),
      'tokens 9 and 42',
    );
  });
});

test("the explorations of a guard: the story's grants from 9, each number's neighbours, each string as every write's value", () => {
  const settings = exploreSettings({ values: ['let-me-in', '42'], tokens: [42, 1, 10] }, 2);
  assert.deepEqual(settings, [
    { firstToken: 9 },
    { firstToken: 41 },
    { firstToken: 42 },
    { firstToken: 43 },
    { firstToken: 9, value: 'let-me-in' },
    { firstToken: 1 },
    { firstToken: 2 },
    { firstToken: 10 },
    { firstToken: 9, value: '42' },
    { firstToken: 11 },
  ]);
  assert.equal(settingsWords(settings.slice(0, 5)), "grants from 41, 42 and 43; the value 'let-me-in'");
  const crowded = exploreSettings({ values: ['open'], tokens: [100, 200, 300, 400] }, 2);
  assert.ok(
    crowded.some((s) => s.value === 'open'),
    'many numbers do not crowd out the string',
  );
  assert.deepEqual(
    exploreSettings({ values: [], tokens: [] }, 2),
    [{ firstToken: 9 }],
    'no constants: the story alone',
  );
  assert.equal(
    exploreSettings({ values: ['a', 'b', 'c'], tokens: [100, 200, 300] }, 2).length,
    MAX_EXPLORE_SETTINGS,
    'at most ten explorations',
  );
  assert.deepEqual(
    exploreSettings({ values: [''], tokens: [2 ** 52] }, 2),
    [{ firstToken: 9 }, { firstToken: 2 ** 52 - 1 }],
    'no empty value; no grant past the largest token the attack stages',
  );
});
