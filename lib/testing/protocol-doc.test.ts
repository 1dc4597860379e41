import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';

/*
 * The worker protocol (docs/protocol.md) against the database: the functions a worker role may call
 * are those whose file in db/functions/ starts with `-- execute: worker`, and the page documents each
 * of them under a `### <name>` heading, and nothing else under such a heading. A function made
 * callable by workers without its page, or a page left for a function taken away, fails. Reads files
 * only: no database, no process.
 */

const FUNCTIONS_DIR = 'db/functions';
const PROTOCOL_DOC = 'docs/protocol.md';
const WORKER_HEADER = '-- execute: worker';

/** The function a db/functions file defines, by its `CREATE OR REPLACE FUNCTION name(`. */
function definedFunction(sql: string): string | undefined {
  return /CREATE OR REPLACE FUNCTION\s+([a-z_][a-z0-9_]*)\s*\(/i.exec(sql)?.[1];
}

/** The functions the worker role may call: the files whose first line is the worker header. */
async function workerFunctions(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const file of (await readdir(FUNCTIONS_DIR)).filter((name) => name.endsWith('.sql')).sort()) {
    const sql = await readFile(path.join(FUNCTIONS_DIR, file), 'utf8');
    if (sql.split('\n')[0]?.trim() !== WORKER_HEADER) continue;
    const name = definedFunction(sql);
    assert.ok(name, `${FUNCTIONS_DIR}/${file} is a worker's function but defines none`);
    names.add(name);
  }
  return names;
}

/** The `### name` headings of a Markdown page, outside fenced code blocks: one identifier each. */
function documentedFunctions(markdown: string): Set<string> {
  const names = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    else if (!fenced) {
      const heading = /^### ([a-z_][a-z0-9_]*)\s*$/.exec(line);
      if (heading?.[1]) names.add(heading[1]);
    }
  }
  return names;
}

/** What is missing on each side, in words; empty when the page and the database agree. */
function differences(callable: Set<string>, documented: Set<string>): string[] {
  return [
    ...[...callable]
      .filter((name) => !documented.has(name))
      .sort()
      .map((name) => `the worker role may call ${name}, which ${PROTOCOL_DOC} does not document`),
    ...[...documented]
      .filter((name) => !callable.has(name))
      .sort()
      .map((name) => `${PROTOCOL_DOC} documents ${name}, which the worker role may not call`),
  ];
}

test('docs/protocol.md documents every function the worker role may call, and only those', async () => {
  const callable = await workerFunctions();
  assert.ok(callable.size > 0, `no file in ${FUNCTIONS_DIR} starts with ${WORKER_HEADER}`);
  const documented = documentedFunctions(await readFile(PROTOCOL_DOC, 'utf8'));
  assert.deepEqual(differences(callable, documented), []);
});

test('the protocol check can fail: it names a function left undocumented and a heading for none', () => {
  const page = [
    '# A page',
    '### worker_join',
    '### worker_retired',
    '```text',
    '### worker_in_a_block',
    '```',
    '### Not a function',
  ].join('\n');
  assert.deepEqual([...documentedFunctions(page)].sort(), ['worker_join', 'worker_retired']);
  assert.deepEqual(differences(new Set(['worker_join', 'worker_beat']), documentedFunctions(page)), [
    'the worker role may call worker_beat, which docs/protocol.md does not document',
    'docs/protocol.md documents worker_retired, which the worker role may not call',
  ]);
  assert.deepEqual(differences(new Set(['worker_join']), new Set(['worker_join'])), []);
  assert.equal(
    definedFunction('-- execute: worker\nCREATE OR REPLACE FUNCTION worker_beat(p_lab text) RETURNS text'),
    'worker_beat',
  );
});

/** The Python runner's length: the Node runner's work (exec-lane.ts and main.ts's join, about 400 lines) in half. */
const RUNNER_MAX_LINES = 225;

/** The lines of a program that are code: neither blank nor a comment, its opening docstring left out. */
function codeLines(source: string): string[] {
  const body = source.replace(/^"""[\s\S]*?"""\n/, '');
  return body.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

test('the page shows the client in twenty lines as it is, and it stays about that short; the reference clients fit a slide, the runner a sitting', async () => {
  const minimal = await readFile('clients/python/minimal.py', 'utf8');
  const page = await readFile(PROTOCOL_DOC, 'utf8');
  const shown = /\n## A client in twenty lines\n[\s\S]*?\n```python\n([\s\S]*?)```\n/.exec(page)?.[1];
  assert.equal(shown, minimal, `${PROTOCOL_DOC}'s "A client in twenty lines" shows clients/python/minimal.py as it is`);
  const code = codeLines(minimal);
  assert.ok(code.length <= 30, `about twenty lines of code, not ${code.length}`);
  for (const client of ['clients/python/worker.py', 'clients/psql/worker.sh']) {
    const lines = (await readFile(client, 'utf8')).trimEnd().split('\n').length;
    assert.ok(lines <= 120, `${client} is short enough to read on a slide (at most 120 lines), not ${lines}`);
  }
  // The runner in Python (a laptop with nothing but Python and psycopg) is a reference too: read in one sitting.
  const runner = (await readFile('clients/python/runner.py', 'utf8')).trimEnd().split('\n').length;
  assert.ok(
    runner <= RUNNER_MAX_LINES,
    `clients/python/runner.py reads in one sitting (at most ${RUNNER_MAX_LINES} lines), not ${runner}`,
  );
});

test('the count of code lines can fail: comments, blank lines and the docstring are not code', () => {
  assert.deepEqual(codeLines('"""A client.\nIn two lines."""\nimport os\n\n# a comment\n  x = 1  # then\n'), [
    'import os',
    '  x = 1  # then',
  ]);
});
