import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { BENCHES } from '../../bench/args';
import { LAB_KINDS } from '../labs/index';
import { failoverWalkthrough } from '../model/failover/failover-walkthrough';
import type { LabId } from '../model/lab/lab-kinds';
import { walkthroughFor } from '../model/walkthrough/walkthrough';
import {
  anchorsOf,
  backtickedPaths,
  docFiles,
  images,
  REPO,
  readDoc,
  relativeLinks,
  repoFileNames,
  sourceTexts,
  tableCells,
  tableRows,
} from './docs-check';
import { DOCS_PICTURES, stalePictures } from './docs-pictures';
import { MAX_SCREEN_BYTES, SCREEN_SIZE, SCREENS, screenStep } from './docs-screens';
import { MUTANTS } from './mutations';

/*
 * The docs against the repository and the code (README.md, docs/**, bench/README.md). A link or a
 * backticked path that no longer leads anywhere fails, and so does a table the code also knows (the
 * labs, the settings, the scenarios, the planted bugs, the benchmarks) when the two disagree. Reads
 * files only: no database, no worker. What counts as a path, and what is skipped: pathLike in
 * docs-check.ts.
 */

/** Files the app writes at run time, named in the docs, that are not in the repository. */
const RUN_TIME_FILES = new Set(['report.md', 'report.html', 'report.json']);

test('every relative link leads to a file of the repository, and every #anchor to a heading', () => {
  const broken: string[] = [];
  for (const doc of docFiles()) {
    for (const { target, n } of relativeLinks(readDoc(doc))) {
      const [file = '', anchor] = target.split('#');
      const resolved = file ? path.join(path.dirname(doc), decodeURIComponent(file)) : doc;
      if (!existsSync(path.join(REPO, resolved))) broken.push(`${doc}:${n}: ${target} (no ${resolved})`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(readDoc(resolved)).has(anchor)) {
        broken.push(`${doc}:${n}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('every file path the docs name in backticks exists', () => {
  const names = repoFileNames();
  const missing: string[] = [];
  for (const doc of docFiles()) {
    for (const { path: named, n } of backtickedPaths(readDoc(doc))) {
      const found = named.includes('/')
        ? existsSync(path.join(REPO, named))
        : names.has(named) || RUN_TIME_FILES.has(named);
      if (!found) missing.push(`${doc}:${n}: ${named}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('every lab kind has its page, titled as the code titles it, and its row in the labs table', () => {
  const rows = tableRows(readDoc('docs/labs/README.md'));
  const listed = rows.flatMap(({ first, cells }) => {
    const id = /^\[`([\w-]+)`\]\(([\w-]+)\.md\)/.exec(first);
    return id ? [{ id: id[1], page: id[2], title: cells[1] }] : [];
  });
  for (const kind of LAB_KINDS) {
    const page = `docs/labs/${kind.id}.md`;
    assert.ok(existsSync(path.join(REPO, page)), `${kind.id}: no ${page}`);
    const heading = readDoc(page).split('\n')[0];
    assert.equal(heading, `# ${kind.title} (\`${kind.id}\`)`, `${page}: its first line`);
    const row = listed.find((entry) => entry.id === kind.id);
    assert.ok(row, `${kind.id}: no row in docs/labs/README.md's table`);
    assert.equal(row.page, kind.id, `${kind.id}: its row links another page`);
    assert.equal(row.title, kind.title, `${kind.id}: its row's title`);
  }
  assert.deepEqual(
    listed.map((entry) => entry.id),
    LAB_KINDS.map((kind) => kind.id),
    'the table lists the kinds of lib/labs/index.ts, in its order',
  );
});

test("each lab's page leads with what a trainer does and sees, with a picture of the real screen", () => {
  const screens = new Set<string>(SCREENS.map(({ file }) => file));
  const wrong: string[] = [];
  for (const kind of LAB_KINDS) {
    const page = `docs/labs/${kind.id}.md`;
    const text = readDoc(page);
    const sections = text.split(/^(?=## )/m);
    const first = sections[1] ?? '';
    if (!first.startsWith('## What a trainer does and sees\n')) {
      wrong.push(`${page}: its first section is not "What a trainer does and sees"`);
      continue;
    }
    const pictures = images(first).map(({ target }) => path.join(path.dirname(page), decodeURIComponent(target)));
    if (!pictures.some((file) => screens.has(file))) wrong.push(`${page}: its trainer's section shows no screen`);
  }
  assert.deepEqual(wrong, []);
});

/** The settings tables: `| \`NAME\` | …` rows of these files. */
const SETTINGS_DOCS = ['docs/running-a-room.md', 'docs/testing.md'];

test('the settings tables name every FENCING_LAB_ variable the code reads, and only those', () => {
  const documented = new Set(
    SETTINGS_DOCS.flatMap((doc) =>
      tableRows(readDoc(doc)).flatMap(({ first }) => /^`([A-Z][A-Z0-9_]+)`$/.exec(first)?.[1] ?? []),
    ),
  );
  const sources = sourceTexts().filter(({ file }) => !file.startsWith(path.join('lib', 'testing', 'docs')));
  const read = new Set(sources.flatMap(({ text }) => [...text.matchAll(/\bFENCING_LAB_[A-Z0-9_]+/g)].map((m) => m[0])));
  const undocumented = [...read].filter((name) => !documented.has(name)).sort();
  assert.deepEqual(undocumented, [], `read by the code, missing from ${SETTINGS_DOCS.join(' or ')}`);
  const unread = [...documented]
    .filter((name) =>
      name.startsWith('FENCING_LAB_')
        ? !read.has(name)
        : !sources.some(({ text }) => new RegExp(`(env\\.${name}\\b|'${name}')`).test(text)),
    )
    .sort();
  assert.deepEqual(unread, [], 'in a settings table, but no code reads it');
});

test('docs/scenarios.md lists every scenario `npm run scenario` knows, and only those', async () => {
  // The command's own usage line, printed before it reaches any database (exit 2).
  const usage = await promisify(execFile)(
    process.execPath,
    ['--conditions=react-server', '--import', 'tsx', 'lib/scenario/main.ts'],
    { cwd: REPO },
  ).then(
    () => assert.fail('npm run scenario without a name should exit 2'),
    (error: { code?: number; stderr?: string }) => {
      assert.equal(error.code, 2, String(error.stderr));
      return String(error.stderr);
    },
  );
  const names = /usage: npm run scenario -- <([^>]+)>/.exec(usage)?.[1]?.split('|');
  assert.ok(names, `no usage line in: ${usage}`);
  const listed = tableRows(readDoc('docs/scenarios.md')).flatMap(({ first }) => /^`([\w-]+)`$/.exec(first)?.[1] ?? []);
  assert.deepEqual(listed, names);
});

test('docs/testing.md lists every planted bug of lib/testing/mutations.ts, and only those', () => {
  const listed = tableRows(readDoc('docs/testing.md')).flatMap(({ first }) => /^`([\w-]+)`$/.exec(first)?.[1] ?? []);
  const bugs = listed.filter((name) => !/^[A-Z]/.test(name));
  assert.deepEqual(
    bugs,
    MUTANTS.map((mutant) => mutant.name),
  );
});

test("bench/README.md's table of current figures has a row for every benchmark, and only those", () => {
  const text = readDoc('bench/README.md');
  const current = text.slice(0, text.indexOf('\n## ', text.indexOf('## Current figures') + 1));
  const listed = tableRows(current).flatMap(({ first }) => /^`([\w-]+)`$/.exec(first)?.[1] ?? []);
  assert.deepEqual([...new Set(listed)].sort(), [...BENCHES].sort());
});

test('the README stays a page a newcomer reads in five minutes: at most 200 lines', () => {
  const lines = readDoc('README.md').split('\n').length;
  assert.ok(lines <= 200, `README.md has ${lines} lines: move the detail to docs/`);
});

/** A table cell a person reads at a glance; more goes in a short paragraph under the table. */
const MAX_CELL_WORDS = 60;

test(`no table cell runs over ${MAX_CELL_WORDS} words`, () => {
  const long = docFiles().flatMap((doc) =>
    tableCells(readDoc(doc))
      .filter(({ words }) => words > MAX_CELL_WORDS)
      .map(({ cell, words, n }) => `${doc}:${n}: ${words} words: ${cell.slice(0, 60)}…`),
  );
  assert.deepEqual(long, [], 'move the detail to a paragraph under the table');
});

test("the docs' pictures are what the app's SVG export draws today from their recorded histories", () => {
  assert.deepEqual(stalePictures(), [], 'draw them again: npm run docs:pictures');
});

test('every picture the docs show is one `npm run docs:pictures` makes, with alt text that says what it shows', () => {
  const made = new Set([...DOCS_PICTURES.map(({ file }) => file), ...SCREENS.map(({ file }) => file)]);
  const wrong: string[] = [];
  for (const doc of docFiles()) {
    for (const { alt, target, n } of images(readDoc(doc))) {
      const file = path.join(path.dirname(doc), decodeURIComponent(target));
      if (!made.has(file)) wrong.push(`${doc}:${n}: ${target} is made by no one (lib/testing/docs-screens.ts)`);
      if (alt.split(' ').length < 4) wrong.push(`${doc}:${n}: ${target} has no alt text worth the name`);
    }
  }
  assert.deepEqual(wrong, []);
});

test("a picture's step number, in its alt text and in what the list says it shows, is its walkthrough's today", () => {
  const wrong: string[] = [];
  const said: Array<{ where: string; file: string; text: string }> = SCREENS.map(({ id, file, shows }) => ({
    where: `lib/testing/docs-screens.ts (${id})`,
    file,
    text: shows,
  }));
  for (const doc of docFiles()) {
    for (const { alt, target, n } of images(readDoc(doc))) {
      said.push({ where: `${doc}:${n}`, file: path.join(path.dirname(doc), decodeURIComponent(target)), text: alt });
    }
  }
  // Every screen's step is one its walkthrough has (the failover lab's: its asynchronous one, which the screen shows).
  const stepsOf = (lab: LabId) => (lab === 'failover' ? failoverWalkthrough('async') : walkthroughFor(lab));
  for (const { id } of SCREENS) {
    const at = screenStep(id);
    if (at && !stepsOf(at.lab).some((step) => step.id === at.step))
      wrong.push(`${id}: ${at.lab} has no step ${at.step}`);
  }
  for (const { where, file, text } of said) {
    const screen = SCREENS.find((s) => s.file === file);
    if (!screen) continue;
    const at = screenStep(screen.id);
    for (const [words, n, of] of text.matchAll(/\bstep (\d+)(?: of (\d+))?/gi)) {
      if (!at) {
        wrong.push(`${where}: "${words}", but ${screen.id} names no step it shows (its at)`);
        continue;
      }
      const steps = stepsOf(at.lab);
      const number = steps.findIndex((step) => step.id === at.step) + 1;
      const count = steps.length;
      if (Number(n) !== number || (of !== undefined && Number(of) !== count)) {
        wrong.push(`${where}: "${words}", but ${screen.id} shows ${at.lab}'s ${at.step}: step ${number} of ${count}`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test('every screen of lib/testing/docs-screens.ts is taken and shown in the docs', () => {
  const shown = new Set(
    docFiles().flatMap((doc) =>
      images(readDoc(doc)).map(({ target }) => path.join(path.dirname(doc), decodeURIComponent(target))),
    ),
  );
  for (const { file } of SCREENS) {
    const full = path.join(REPO, file);
    assert.ok(existsSync(full), `${file}: missing: npm run docs:pictures`);
    const png = readFileSync(full);
    assert.equal(png.toString('latin1', 1, 4), 'PNG', `${file}: not a PNG`);
    // The IHDR chunk: width and height, big-endian, at bytes 16 and 20.
    assert.equal(png.readUInt32BE(16), SCREEN_SIZE.width, `${file}: one image pixel per CSS pixel of the window`);
    assert.ok(png.readUInt32BE(20) <= SCREEN_SIZE.height, `${file}: at most the window's height`);
    assert.ok(
      statSync(full).size <= MAX_SCREEN_BYTES,
      `${file}: ${statSync(full).size} bytes, over ${MAX_SCREEN_BYTES}`,
    );
    assert.ok(shown.has(file), `${file}: no doc shows it`);
  }
});
