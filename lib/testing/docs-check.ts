import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * What lib/testing/docs.test.ts reads in the Markdown docs: their headings (as GitHub makes anchors of
 * them), their relative links, the file paths they name in backticks, and the first cells of their
 * tables. Pure reading of files: no database, no process.
 */

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The docs the test judges: the README, everything under docs/, and the benchmarks' log. */
export function docFiles(): string[] {
  const under = (dir: string): string[] =>
    readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((entry) => {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) return under(rel);
      return entry.name.endsWith('.md') ? [rel] : [];
    });
  return ['README.md', ...under('docs'), 'bench/README.md'];
}

export function readDoc(file: string): string {
  return readFileSync(path.join(REPO, file), 'utf8');
}

/** The lines of a Markdown file outside fenced code blocks (``` … ```), with their 1-based numbers. */
export function proseLines(text: string): Array<{ line: string; n: number }> {
  let fenced = false;
  const out: Array<{ line: string; n: number }> = [];
  text.split('\n').forEach((line, i) => {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    else if (!fenced) out.push({ line, n: i + 1 });
  });
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { line } of proseLines(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading?.[1]) continue;
    const base = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every `[text](target)` whose target is in the repository (not a URL), with its line. */
export function relativeLinks(text: string): Array<{ target: string; n: number }> {
  const out: Array<{ target: string; n: number }> = [];
  for (const { line, n } of proseLines(text)) {
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) out.push({ target, n });
    }
  }
  return out;
}

/** Every image `![alt](target)` whose target is in the repository, its alt text on one line (it may wrap). */
export function images(text: string): Array<{ alt: string; target: string; n: number }> {
  const lines = proseLines(text);
  const prose = lines.map(({ line }) => line).join('\n');
  const out: Array<{ alt: string; target: string; n: number }> = [];
  for (const match of prose.matchAll(/!\[([^\]]*)\]\(([^)\s]+)\)/g)) {
    const target = match[2] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const n = lines[prose.slice(0, match.index).split('\n').length - 1]?.n ?? 0;
    out.push({ alt: (match[1] as string).replace(/\s+/g, ' ').trim(), target, n });
  }
  return out;
}

/** Folders and files at the repository's top that a backticked path may start with. */
const REPO_ROOTS = /^(app|components|lib|db|e2e|bench|docs|\.ci)\//;
const FILE_NAME = /^[\w.[\]-]+\.(ts|tsx|mjs|cjs|js|sql|md|json|css)$/;
/**
 * What a backticked word must look like to be judged a path: a repository folder and a path after it,
 * or a bare file name with a source extension. Skipped, by rule: anything with a placeholder or a glob
 * (`<kind>`, `*`, `…`, `{`, `$`) or a space, absolute paths and URLs (`/usr/bin/chromium`, `/api/…`),
 * and the run-time folders `.data/` and `.next/`, which are not in the repository.
 */
export function pathLike(code: string): string | null {
  const word = code.replace(/:\d+$/, '');
  if (/[<>*…{}$\s]/.test(word) || word.includes('...')) return null;
  if (REPO_ROOTS.test(word) || FILE_NAME.test(word)) return word;
  return null;
}

/** Every backticked word of the prose that names a file or folder, with its line. */
export function backtickedPaths(text: string): Array<{ path: string; n: number }> {
  const out: Array<{ path: string; n: number }> = [];
  for (const { line, n } of proseLines(text)) {
    for (const match of line.matchAll(/`([^`]+)`/g)) {
      const found = pathLike(match[1] as string);
      if (found) out.push({ path: found, n });
    }
  }
  return out;
}

const NOT_SOURCE = new Set(['node_modules', '.git', '.next', '.data', 'test-results', 'playwright-report']);

/** The name of every file in the repository, so that a bare `checker.ts` can be found wherever it lives. */
export function repoFileNames(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (NOT_SOURCE.has(entry.name)) continue;
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else names.add(entry.name);
    }
  };
  walk(REPO);
  return names;
}

/** The first cell of every table row under a heading (or in the whole file): `| \`x\` | …` gives x. */
export function tableRows(text: string): Array<{ first: string; cells: string[] }> {
  return proseLines(text)
    .filter(({ line }) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .map(({ line }) => {
      const cells = line
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split(' | ')
        .map((cell) => cell.trim());
      return { first: cells[0] ?? '', cells };
    });
}

/**
 * Every cell of every table row, with its line and its number of words (runs of non-space). Cells are
 * split at unescaped pipes, as GitHub splits them; the separator row (`| --- |`) is not a row.
 */
export function tableCells(text: string): Array<{ cell: string; words: number; n: number }> {
  return proseLines(text)
    .filter(({ line }) => line.startsWith('|') && !/^\|\s*:?-/.test(line))
    .flatMap(({ line, n }) =>
      line
        .replace(/^\|/, '')
        .replace(/\|\s*$/, '')
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim())
        .map((cell) => ({ cell, words: cell.split(/\s+/).filter(Boolean).length, n })),
    );
}

/** The source text of the app, its tools, its tests and the reference clients, for the settings the code reads. */
export function sourceTexts(): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|tsx|mjs|cjs|js|sh|py)$/.test(entry.name)) out.push({ file: rel, text: readDoc(rel) });
    }
  };
  // clients/: the reference clients in bash and Python read settings of their own (FENCING_LAB_TTL_MS…).
  for (const dir of ['app', 'components', 'lib', 'db', 'bench', 'e2e', 'clients']) walk(dir);
  for (const file of ['instrumentation.ts', 'proxy.ts', 'next.config.mjs', 'playwright.config.ts']) {
    out.push({ file, text: readDoc(file) });
  }
  return out;
}
