import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { sourceFiles } from './source-files';

/*
 * What each page sends to the browser, read from the imports: from the page and the root layout
 * (server code: every static import), each 'use client' module it reaches, and from there every
 * module the browser loads with it (static value imports; `import type` is erased, `import()` loads
 * later, on a click (a history file's schema loads so, when a file is chosen), and a 'use server' module is a door to the server, not code sent). The browser
 * must get no pg, no Node module, nothing marked server-only; and zod (31 kB gzip, an eighth of a
 * lab page's first load) only on the pages whose browser code checks what a person gives it with
 * the server's own schema. A constant beside a schema (a limit, the failover lab's holders) brought
 * zod to every lab page once (bench's first-load figure went from 197 to 231 kB, over its goal):
 * such constants live in a module without zod.
 */

/** Pages whose browser code parses with zod, and why. Any other page that loads zod fails. */
const ZOD_IN_THE_BROWSER: Record<string, string> = {
  'app/sweep/page.tsx': "the sweep's form checks its lists with the server's own schema before it asks",
};

const NEVER_IN_THE_BROWSER = /^(pg|pg-.*|node:.*|server-only|libpg-query|pgsql-deparser|graphile-worker|esbuild)$/;

type Sources = ReadonlyMap<string, string>;

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s)?([^;]*?)\sfrom\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g;

/** A module's static imports that load code: not `import type`, not `import { type A, type B }`. */
export function valueImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    if (match[5]) {
      found.push(match[5]);
      continue;
    }
    if (match[2]) continue;
    const names = /^\{([^}]*)\}$/s.exec((match[3] ?? '').trim())?.[1];
    const all = names
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (all && all.length > 0 && all.every((name) => name.startsWith('type '))) continue;
    found.push(match[4] as string);
  }
  return found;
}

const directive = (source: string, which: 'client' | 'server') =>
  new RegExp(`^\\s*(?:/\\*[\\s\\S]*?\\*/\\s*|//[^\\n]*\\n\\s*)*['"]use ${which}['"]`).test(source);

/** A specifier as a file of `sources`, or `package:<name>` for a package. */
function resolve(sources: Sources, from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('@/')) base = path.normalize(specifier.slice(2));
  else if (specifier.startsWith('.')) base = path.normalize(path.join(path.dirname(from), specifier));
  else
    return `package:${specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] as string)}`;
  return [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((file) => sources.has(file));
}

/**
 * What the browser loads for a page: every module reached from its 'use client' modules, each with
 * the chain of imports that brought it (for the failure's words). The server part is walked only to
 * find those modules.
 */
export function browserModules(
  sources: Sources,
  roots: readonly string[],
  unresolved: string[] = [],
): Map<string, string[]> {
  const server = new Set<string>();
  const clientEntries: string[] = [];
  const pending = [...roots];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (server.has(file)) continue;
    server.add(file);
    const source = sources.get(file) ?? '';
    if (directive(source, 'client')) {
      clientEntries.push(file);
      continue;
    }
    for (const specifier of valueImports(source)) {
      const to = resolve(sources, file, specifier);
      if (to && !to.startsWith('package:')) pending.push(to);
    }
  }
  const chains = new Map<string, string[]>(clientEntries.map((entry) => [entry, [entry]]));
  const queue = [...clientEntries];
  while (queue.length > 0) {
    const file = queue.shift() as string;
    const source = sources.get(file) ?? '';
    if (directive(source, 'server')) continue;
    for (const specifier of valueImports(source)) {
      const to = resolve(sources, file, specifier);
      // A file the walk cannot read would hide what it imports: every one must resolve (a stylesheet aside).
      if (!to && !specifier.endsWith('.css')) unresolved.push(`${file} imports ${specifier}`);
      if (!to || chains.has(to)) continue;
      chains.set(to, [...(chains.get(file) as string[]), to]);
      if (!to.startsWith('package:')) queue.push(to);
    }
  }
  return chains;
}

async function productSources(): Promise<Map<string, string>> {
  const files = (await Promise.all(['app', 'components', 'lib'].map(sourceFiles))).flat();
  const product = files.filter((file) => !/\.test\.tsx?$/.test(file) && !file.startsWith('lib/testing/'));
  return new Map(await Promise.all(product.map(async (file) => [file, await readFile(file, 'utf8')] as const)));
}

test("each page's browser code loads no pg, no Node module, and zod only where it checks a person's input", async () => {
  const sources = await productSources();
  const pages = [...sources.keys()].filter((file) => /^app\/(.*\/)?page\.tsx$/.test(file));
  assert.ok(pages.length >= 10, `pages found: ${pages.join(', ')}`);
  const wrong: string[] = [];
  const withZod: string[] = [];
  const unresolved: string[] = [];
  for (const page of pages) {
    const loaded = browserModules(sources, [page, 'app/layout.tsx'], unresolved);
    if (page === 'app/labs/[lab]/page.tsx')
      assert.ok(loaded.size > 50, `the lab page's browser code: ${loaded.size} modules`);
    for (const [module, chain] of loaded) {
      const name = module.replace(/^package:/, '');
      if (module.startsWith('package:') && NEVER_IN_THE_BROWSER.test(name)) {
        wrong.push(`${page} sends ${name} to the browser: ${chain.join(' → ')}`);
      }
    }
    const zod = loaded.get('package:zod');
    if (zod) {
      withZod.push(page);
      if (!ZOD_IN_THE_BROWSER[page]) wrong.push(`${page} sends zod to the browser: ${zod.join(' → ')}`);
    }
  }
  assert.deepEqual(wrong, [], wrong.join('\n'));
  assert.deepEqual(
    [...new Set(unresolved)],
    [],
    'browser code importing a file the walk does not read (add its folder)',
  );
  const stale = Object.keys(ZOD_IN_THE_BROWSER).filter((page) => !withZod.includes(page) || !existsSync(page));
  assert.deepEqual(stale, [], 'pages that no longer load zod: take them out of ZOD_IN_THE_BROWSER');
});

test('the walk can fail: a constant beside a schema brings zod to the page, a type import does not', () => {
  const sources = new Map([
    ['app/labs/page.tsx', "import { Controls } from '@/components/controls';\nexport default Controls;"],
    ['app/layout.tsx', "import type { Metadata } from 'next';"],
    [
      'components/controls.tsx',
      "'use client';\nimport type { Input } from '../lib/inputs';\nimport { act } from '../app/actions';\nimport { LIMIT } from '../lib/limits';",
    ],
    ['lib/limits.ts', "export { MAX } from './settings';\nexport const LIMIT = 3;"],
    ['lib/settings.ts', "import { z } from 'zod';\nexport const MAX = 1;"],
    ['lib/inputs.ts', "import { z } from 'zod';"],
    ['app/actions.ts', "'use server';\nimport { Pool } from 'pg';"],
  ]);
  const loaded = browserModules(sources, ['app/labs/page.tsx', 'app/layout.tsx']);
  assert.deepEqual(loaded.get('package:zod'), [
    'components/controls.tsx',
    'lib/limits.ts',
    'lib/settings.ts',
    'package:zod',
  ]);
  assert.equal(loaded.has('package:pg'), false, "a 'use server' module is a door, not code sent");
  assert.equal(loaded.has('lib/inputs.ts'), false, 'a type import sends nothing');
  sources.set('lib/limits.ts', 'export const LIMIT = 3;');
  assert.equal(browserModules(sources, ['app/labs/page.tsx']).has('package:zod'), false);
  assert.deepEqual(valueImports("import { type A, type B } from './a';\nimport { type C, d } from './d';"), ['./d']);
  const missing: string[] = [];
  sources.set('lib/limits.ts', "import { rows } from '../db/rows';\nexport const LIMIT = 3;");
  browserModules(sources, ['app/labs/page.tsx'], missing);
  assert.deepEqual(missing, ['lib/limits.ts imports ../db/rows'], 'a file outside the walk is named, not skipped');
});
