import { readdir, stat } from 'node:fs/promises';
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

/** True when there is no production build, or a source file changed after it was made. */
export async function buildIsStale(root: string): Promise<boolean> {
  const built = await mtime(path.join(root, '.next', 'BUILD_ID'));
  if (built === undefined) return true;
  const newest = Math.max(
    ...(await Promise.all(SOURCE_FILES.map((file) => mtime(path.join(root, file))))).map((t) => t ?? 0),
    ...(await Promise.all(SOURCE_DIRS.map((dir) => newestIn(path.join(root, dir))))),
  );
  return newest > built;
}

async function newestIn(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const times = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? newestIn(full) : mtime(full).then((t) => t ?? 0);
    }),
  );
  return Math.max(0, ...times);
}

async function mtime(file: string): Promise<number | undefined> {
  return stat(file).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
}
