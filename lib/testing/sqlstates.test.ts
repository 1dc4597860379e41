import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { SQLSTATE_MEANINGS, SQLSTATES_NOT_FOR_CALLERS } from '../../db/sqlstates';
import { PROJECT_ROOT } from '../launcher/paths';

/*
 * One meaning per SQLSTATE, in one place (issue 37): every code our functions raise is in
 * db/sqlstates.ts, with its meaning to a caller or as one that means nothing to a caller, and nothing
 * there is raised by none; no other file compares one of our codes but by that map's names.
 */

async function raisedByOurFunctions(): Promise<Map<string, string[]>> {
  const dir = path.join(PROJECT_ROOT, 'db/functions');
  const raised = new Map<string, string[]>();
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.sql'))) {
    const sql = await readFile(path.join(dir, file), 'utf8');
    for (const [, code] of sql.matchAll(/ERRCODE\s*=\s*'([0-9A-Z]{5})'/g)) {
      raised.set(code as string, [...(raised.get(code as string) ?? []), file]);
    }
  }
  return raised;
}

test('every SQLSTATE our functions raise has one meaning in db/sqlstates.ts, and every one there is raised', async () => {
  const raised = await raisedByOurFunctions();
  const meant = new Set<string>([...Object.keys(SQLSTATE_MEANINGS), ...SQLSTATES_NOT_FOR_CALLERS]);
  const unmapped = [...raised.keys()]
    .filter((code) => !meant.has(code))
    .map((code) => `${code} (${raised.get(code)?.join(', ')})`);
  assert.deepEqual(unmapped, [], 'raised, but with no meaning in db/sqlstates.ts');
  assert.deepEqual(
    [...meant].filter((code) => !raised.has(code)),
    [],
    'in db/sqlstates.ts, but raised by no function',
  );
  const both = Object.keys(SQLSTATE_MEANINGS).filter((code) =>
    (SQLSTATES_NOT_FOR_CALLERS as readonly string[]).includes(code),
  );
  assert.deepEqual(both, [], 'a code with a meaning and none');
});

test('the check can fail: a code raised by no function of ours is seen', async () => {
  const raised = await raisedByOurFunctions();
  assert.ok(raised.has('FL007') && !raised.has('FL999'));
  assert.deepEqual(raised.get('FLG02'), ['fl_take_guard_share.sql', 'fl_take_guard_share.sql']);
});
