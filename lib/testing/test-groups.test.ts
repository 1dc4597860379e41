import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { purityChecker, splitTests } from './test-groups';

/*
 * The rule that sends a node test file to the pure group (run side by side, without a database) or to
 * a database lane (lib/testing/run-node-tests.ts): read from what the file imports, through the
 * project's own files.
 */

test('a model test is pure; a test that reaches pg or a process through the project is not', async () => {
  const { pure, database } = await splitTests([
    'lib/model/token.test.ts',
    'db/labs.test.ts',
    'lib/supervisor/supervisor.test.ts',
  ]);
  assert.deepEqual(pure, ['lib/model/token.test.ts']);
  assert.deepEqual(database, ['db/labs.test.ts', 'lib/supervisor/supervisor.test.ts']);
});

test('the rule follows imports two files deep, through an import circle, and sees the database address read from the environment', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-test-groups-'));
  try {
    const files: Record<string, string> = {
      'pure.test.ts': "import { a } from './a';\n",
      'a.ts': "import { b } from './b';\nexport const a = 1;\n",
      'b.ts': "import { a } from './a';\nexport const b = 2;\n",
      'deep.test.ts': "import { c } from './c';\n",
      'c.ts': "export { d } from './d';\n",
      'd.ts': "import pg from 'pg';\nexport const d = pg;\n",
      'spawns.test.ts': "import { spawn } from 'node:child_process';\n",
      // The name in two parts, or this very file would count as reading it and leave the pure group.
      'env.test.ts': `const url = process.env.${'DATABASE'}_URL;\n`,
      'lazy.test.ts': "const m = await import('./d');\n",
    };
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
    const why = purityChecker();
    const at = (name: string) => why(path.join(dir, name));
    assert.equal(await at('pure.test.ts'), undefined);
    assert.match((await at('deep.test.ts')) ?? '', /d\.ts imports pg$/);
    assert.match((await at('spawns.test.ts')) ?? '', /imports node:child_process$/);
    assert.match((await at('env.test.ts')) ?? '', /reads DATABASE.URL$/);
    assert.match((await at('lazy.test.ts')) ?? '', /d\.ts imports pg$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
