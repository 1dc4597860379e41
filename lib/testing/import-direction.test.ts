import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { allSourceFiles, SOURCE_ROOTS, sourceFiles, withoutExtension } from './source-files';

/*
 * The house has one direction: app/ → the request layer (lib/server/) → the process layer
 * (lib/supervisor/, lib/worker/, lib/chaos/, lib/jobs/, lib/sweep/) and db/ → lib/model/ → lib/labs/
 * (the lab kinds, which import nothing else). These tests read the import statements of every .ts and
 * .tsx file under app/, components/, lib/ and db/ and fail on an import that runs the other way (SQL
 * outside db/: sql-only-in-db.test.ts). Tests and lib/testing are the harness: they stand above every
 * layer and may import any of them, and no product code may import them.
 */

type Layer =
  | 'labs'
  | 'model'
  | 'leaf'
  | 'config'
  | 'db'
  | 'process'
  | 'request'
  | 'components'
  | 'app'
  | 'entry'
  | 'harness';

/** Which layer a file (a path relative to the repository, without extension) belongs to. */
function layerOf(file: string): Layer {
  if (/\.test$/.test(file) || file.startsWith('lib/testing/')) return 'harness';
  // The lab kinds' definitions: data every layer asks, the browser's included.
  if (file.startsWith('lib/labs/')) return 'labs';
  if (file.startsWith('lib/model/')) return 'model';
  // Leaves: console and operating-system helpers that import nothing of the project.
  if (file.startsWith('lib/log/') || file.startsWith('lib/os/')) return 'leaf';
  // The room's settings, read from the environment once (lib/config/room-settings.ts), and the data
  // directory's one reader (lib/config/data-dir.ts): below every layer that runs, above the pure model
  // whose schema it applies.
  if (file.startsWith('lib/config/')) return 'config';
  if (file.startsWith('db/')) return 'db';
  // What runs in a process beside the requests: the supervisor and its workers, chaos runs, sweeps, and the
  // server's background jobs (instrumentation.ts), which like the supervisor use only db/ and leaves.
  if (/^lib\/(supervisor|worker|chaos|jobs|sweep)\//.test(file)) return 'process';
  if (file.startsWith('lib/server/')) return 'request';
  if (file.startsWith('components/')) return 'components';
  if (file.startsWith('app/')) return 'app';
  // Programs of their own (npm start, npm run scenario, npm run explore): they may use every layer, none uses them.
  if (/^lib\/(launcher|scenario|soak|explore)\//.test(file)) return 'entry';
  throw new Error(`${file}: no layer (add its folder to layerOf)`);
}

/** What each layer may import, besides npm packages and Node's own modules (checked separately). */
const MAY_IMPORT: Record<Exclude<Layer, 'harness'>, Layer[]> = {
  labs: ['labs'],
  model: ['model', 'labs'],
  leaf: ['leaf'],
  config: ['config', 'model', 'labs'],
  db: ['db', 'config', 'model', 'labs', 'leaf'],
  process: ['process', 'db', 'config', 'model', 'labs', 'leaf'],
  request: ['request', 'process', 'db', 'config', 'model', 'labs', 'leaf'],
  // The UI reaches the server through server actions and the request layer, never db/ or a process.
  components: ['components', 'request', 'model', 'labs'],
  // Pages and route handlers reach the database only through the request layer (lib/server/).
  app: ['app', 'components', 'request', 'process', 'config', 'model', 'labs', 'leaf'],
  // As their comment says, every layer: `npm run explore -- --guard` reads a guard with the request layer's parser.
  entry: ['entry', 'request', 'process', 'db', 'config', 'model', 'labs', 'leaf'],
};

/** Packages a layer must not use: lib/model and lib/labs stay pure (no React, pg, process, Next); db/ draws nothing. */
const FORBIDDEN_PACKAGES: Partial<Record<Layer, RegExp>> = {
  labs: /^(node:|pg$|react|react-dom|next|server-only|zustand|zod)/,
  model: /^(node:|pg$|react|react-dom|next|server-only|zustand)/,
  leaf: /^(pg$|react|react-dom|next|zustand)/,
  db: /^(react|react-dom|next|zustand)/,
};

/*
 * Known leftovers, each owned by another piece of work. An entry here that no longer matches an
 * import fails the test, so the list only shrinks. (Empty since issue 25: the durability scenario's
 * throwaway cluster moved from lib/testing/ to lib/launcher/.)
 */
const LEFTOVERS: { from: string; to: string; why: string }[] = [];

/*
 * Server actions are the one door from a client component to the server: Next.js reaches them only
 * through an import of the 'use server' module, which the house keeps beside its page in app/.
 */
const UI_MAY_IMPORT_FROM_APP = new Set(['app/actions']);

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The import specifiers of one file: static imports, re-exports, side-effect imports and import(). */
function importsOf(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((match) => (match[1] ?? match[2] ?? match[3]) as string);
}

/** A specifier resolved to a repository path without extension, or undefined for a package. */
function resolveImport(fromFile: string, specifier: string): string | undefined {
  if (specifier.startsWith('@/')) return withoutExtension(path.normalize(specifier.slice(2)));
  if (specifier.startsWith('.')) return withoutExtension(path.join(path.dirname(fromFile), specifier));
  return undefined;
}

type Edge = { from: string; to: string; specifier: string };

async function allEdges(files?: string[]): Promise<Edge[]> {
  files ??= await allSourceFiles();
  const edges: Edge[] = [];
  for (const file of files) {
    const from = withoutExtension(file);
    for (const specifier of importsOf(await readFile(file, 'utf8'))) {
      edges.push({ from, to: resolveImport(file, specifier) ?? `package:${specifier}`, specifier });
    }
  }
  return edges;
}

/** Why this import runs the wrong way, or undefined when it may stand. */
function wrongWay(edge: Edge): string | undefined {
  const from = layerOf(edge.from);
  if (edge.to.startsWith('package:')) {
    const forbidden = FORBIDDEN_PACKAGES[from];
    return forbidden?.test(edge.specifier) ? `${from} must not use the package ${edge.specifier}` : undefined;
  }
  if (from === 'harness') return undefined;
  if (!SOURCE_ROOTS.some((root) => edge.to.startsWith(`${root}/`))) return undefined; // package.json, next.config…
  const to = layerOf(edge.to);
  if (to === 'harness') return 'product code must not import tests or lib/testing';
  if (from === 'components' && to === 'app' && UI_MAY_IMPORT_FROM_APP.has(edge.to)) return undefined;
  if (!MAY_IMPORT[from].includes(to)) return `${from} must not import ${to}`;
  return undefined;
}

test('imports run one way: app → request → process and db → model', async () => {
  const edges = await allEdges();
  const isLeftover = (edge: Edge) => LEFTOVERS.some((l) => l.from === edge.from && l.to === edge.to);
  const wrong = edges
    .filter((edge) => !isLeftover(edge))
    .flatMap((edge) => {
      const why = wrongWay(edge);
      return why ? [`${edge.from} imports ${edge.specifier}: ${why}`] : [];
    });
  assert.deepEqual(wrong, [], `imports that run the wrong way:\n${wrong.join('\n')}`);

  const stale = LEFTOVERS.filter((l) => !edges.some((edge) => edge.from === l.from && edge.to === l.to));
  assert.deepEqual(stale, [], 'leftovers that are gone: remove them from LEFTOVERS');
});

test('the direction check can fail: it names an import that runs backwards', () => {
  assert.match(wrongWay({ from: 'lib/model/core/token', to: 'db/pool', specifier: '../../db/pool' }) ?? '', /model/);
  assert.match(wrongWay({ from: 'db/health', to: 'lib/server/access', specifier: 'x' }) ?? '', /db must not/);
  assert.match(
    wrongWay({ from: 'lib/supervisor/supervisor', to: 'lib/server/access', specifier: 'x' }) ?? '',
    /process/,
  );
  assert.match(wrongWay({ from: 'components/lab/x', to: 'db/fenced-write', specifier: 'x' }) ?? '', /components/);
  assert.match(
    wrongWay({ from: 'components/lab/x', to: 'lib/supervisor/supervisor', specifier: 'x' }) ?? '',
    /components/,
  );
  assert.match(wrongWay({ from: 'lib/server/access', to: 'app/actions', specifier: 'x' }) ?? '', /app/);
  assert.match(
    wrongWay({ from: 'app/page', to: 'db/leases', specifier: '@/db/leases' }) ?? '',
    /app must not import db/,
  );
  assert.match(wrongWay({ from: 'lib/jobs/x', to: 'lib/launcher/processes', specifier: 'x' }) ?? '', /entry/);
  assert.match(wrongWay({ from: 'lib/model/x', to: 'package:pg', specifier: 'pg' }) ?? '', /pg/);
  // The harness (lib/testing, *.test.ts) may import product code; product code never imports the harness.
  assert.match(
    wrongWay({ from: 'lib/scenario/durability', to: 'lib/testing/test-cluster', specifier: 'x' }) ?? '',
    /must not import tests or lib\/testing/,
  );
  assert.match(
    wrongWay({ from: 'db/pool', to: 'db/pool.test', specifier: './pool.test' }) ?? '',
    /must not import tests/,
  );
  assert.equal(wrongWay({ from: 'lib/testing/x', to: 'db/pool', specifier: 'x' }), undefined);
  assert.equal(wrongWay({ from: 'db/pool.test', to: 'lib/testing/fixtures', specifier: 'x' }), undefined);
  assert.match(wrongWay({ from: 'lib/labs/x', to: 'lib/model/core/token', specifier: '../model/token' }) ?? '', /labs/);
  assert.match(wrongWay({ from: 'lib/labs/x', to: 'package:react', specifier: 'react' }) ?? '', /react/);
  assert.equal(wrongWay({ from: 'components/lab/x', to: 'app/actions', specifier: '@/app/actions' }), undefined);
  assert.deepEqual(importsOf("import type { A } from './a';\nexport { b } from \"../b\";\nawait import('./c');"), [
    './a',
    '../b',
    './c',
  ]);
});

/*
 * lib/model's shared core (lib/model/core/: errors, events, the wire format, tokens, inputs…) is what
 * every concept folder of lib/model builds on; it imports none of them, so that no concept needs another
 * one just to speak the wire format. Its leftovers, like LEFTOVERS, can only shrink.
 */
const CORE_LEFTOVERS: { from: string; to: string; why: string }[] = [
  {
    from: 'lib/model/core/wire',
    to: 'lib/model/poll/poll',
    why: 'the lab snapshot on the wire carries the run’s polls (PollView, type only): the snapshot or the poll view wants a module of its own',
  },
];

function coreReachesOut(edge: Edge): boolean {
  return (
    edge.from.startsWith('lib/model/core/') &&
    layerOf(edge.from) !== 'harness' &&
    edge.to.startsWith('lib/model/') &&
    !edge.to.startsWith('lib/model/core/')
  );
}

test('lib/model/core imports no concept folder of lib/model', async () => {
  const edges = await allEdges();
  const isLeftover = (edge: Edge) => CORE_LEFTOVERS.some((l) => l.from === edge.from && l.to === edge.to);
  const out = edges
    .filter((edge) => coreReachesOut(edge) && !isLeftover(edge))
    .map((e) => `${e.from} imports ${e.specifier}`);
  assert.deepEqual(out, [], `the core reaches into a concept folder:\n${out.join('\n')}`);
  const stale = CORE_LEFTOVERS.filter((l) => !edges.some((edge) => edge.from === l.from && edge.to === l.to));
  assert.deepEqual(stale, [], 'core leftovers that are gone: remove them from CORE_LEFTOVERS');
  assert.ok(coreReachesOut({ from: 'lib/model/core/x', to: 'lib/model/timeline/timeline', specifier: 'x' }));
  assert.ok(!coreReachesOut({ from: 'lib/model/core/x.test', to: 'lib/model/sweep/sweep-grid', specifier: 'x' }));
});

/*
 * No circles: a module never reaches itself through its imports, type-only imports included. A
 * type-only circle costs nothing at run time, but it still says two modules are one concept split in
 * two (or that a shared piece wants a module of its own), and it lets the next import close a runtime
 * circle unnoticed. Dynamic import() counts too. bench/ is looked at here as well.
 */

/** Every circle of the graph, one per strongly connected component (Tarjan's), as a path that closes. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfImport = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || selfImport) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  // One circle in each component: the shortest way from its first member back to itself.
  return components.map((component) => {
    const inside = new Set(component);
    const start = component[0] as string;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const node = queue.shift() as string;
      for (const to of graph.get(node) ?? []) {
        if (!inside.has(to) || cameFrom.has(to)) continue;
        cameFrom.set(to, node);
        if (to === start) {
          const between: string[] = [];
          for (let at = node; at !== start; at = cameFrom.get(at) as string) between.unshift(at);
          return [start, ...between, start];
        }
        queue.push(to);
      }
    }
    return [start, start];
  });
}

/** The project's import graph: file → the project files it imports (without extensions). */
function importGraph(files: string[], edges: Edge[]): Map<string, string[]> {
  const known = new Set(files.map(withoutExtension));
  const graph = new Map<string, string[]>([...known].map((file) => [file, []]));
  for (const edge of edges) {
    const to = known.has(edge.to) ? edge.to : known.has(`${edge.to}/index`) ? `${edge.to}/index` : undefined;
    if (to && !graph.get(edge.from)?.includes(to)) graph.get(edge.from)?.push(to);
  }
  return graph;
}

test('no import circles in app, components, lib, db or bench', async () => {
  const files = [...(await allSourceFiles()), ...(await sourceFiles('bench'))];
  const found = circles(importGraph(files, await allEdges(files)));
  assert.deepEqual(
    found.map((circle) => circle.join(' → ')),
    [],
    `import circles (break each by moving the shared piece into a module of its own):\n${found.map((c) => c.join(' → ')).join('\n')}`,
  );
});

test('the circle check can fail: it prints the circle it finds', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c', 'd']],
    ['c', ['a']],
    ['d', []],
    ['e', ['e']],
  ]);
  assert.deepEqual(circles(graph), [
    ['a', 'b', 'c', 'a'],
    ['e', 'e'],
  ]);
  assert.deepEqual(
    circles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
});
