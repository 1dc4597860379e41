import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

const SOURCE_DIRS = ['app', 'components', 'lib', 'db'];
const SOURCE_FILES = [
  'next.config.mjs',
  'proxy.ts',
  'instrumentation.ts',
  'package.json',
  'package-lock.json',
  'tailwind.config.ts',
  'postcss.config.mjs',
  'tsconfig.json',
];
/** Where a build made by the launcher records the sources it was made from. */
const STAMP = path.join('.next', 'fencing-lab-sources');

/**
 * What the sources are now: every source file's path, size and modification time, hashed. A file
 * edited, added or deleted changes it; so does one edited while a build ran (the fingerprint is taken
 * before the build starts), which a "newer than the build" test would miss.
 */
export async function sourceFingerprint(root: string): Promise<string> {
  const files = [
    ...SOURCE_FILES.map((file) => path.join(root, file)),
    ...(await Promise.all(SOURCE_DIRS.map((dir) => filesIn(path.join(root, dir))))).flat(),
  ];
  const lines = await Promise.all(
    files.map(async (file) => {
      // A file gone since the listing: fingerprinted as absent.
      const s = await stat(file).catch(() => undefined);
      return `${path.relative(root, file)}\t${s ? `${s.size}\t${s.mtimeMs}` : 'absent'}`;
    }),
  );
  return createHash('sha256').update(lines.sort().join('\n')).digest('hex');
}

/** True when there is no production build, or it was not made from the sources as they are now. */
export async function buildIsStale(root: string, fingerprint: string): Promise<boolean> {
  // No build, or no stamp of what it was made from: stale, build again.
  if ((await stat(path.join(root, '.next', 'BUILD_ID')).catch(() => undefined)) === undefined) return true;
  const made = await readFile(path.join(root, STAMP), 'utf8').catch(() => undefined); // no stamp: stale
  return made?.trim() !== fingerprint;
}

/** Records, after a build succeeded, the sources it was made from (the fingerprint taken before it). */
export async function recordBuild(root: string, fingerprint: string): Promise<void> {
  await writeFile(path.join(root, STAMP), `${fingerprint}\n`);
}

async function filesIn(dir: string): Promise<string[]> {
  // A folder that is not there holds no sources.
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? filesIn(full) : Promise.resolve([full]);
    }),
  );
  return nested.flat();
}

/**
 * The project's own files (outside node_modules/ and .next/) that the build's traces (.next/**\/*.nft.json, what
 * Next would ship as the server) list, relative to the root. A path Turbopack cannot scope to a folder makes it
 * warn "Dynamic filesystem access causes tracing of the whole project" and list every file of the repository.
 */
export async function tracedProjectFiles(root: string): Promise<string[]> {
  const traces = (await filesIn(path.join(root, '.next'))).filter((file) => file.endsWith('.nft.json'));
  const found = new Set<string>();
  for (const trace of traces) {
    const { files } = JSON.parse(await readFile(trace, 'utf8')) as { files: string[] };
    for (const file of files) {
      const relative = path.relative(root, path.resolve(path.dirname(trace), file));
      if (!/^(node_modules|\.next)[\\/]/.test(relative)) found.add(relative.split(path.sep).join('/'));
    }
  }
  return [...found].sort();
}
