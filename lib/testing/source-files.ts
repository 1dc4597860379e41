import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** The folders the house rules look at: everything the app, the workers and the tests are made of. */
export const SOURCE_ROOTS = ['app', 'components', 'lib', 'db'];

const SOURCE = /\.(ts|tsx)$/;

/** Every .ts and .tsx file under `dir` (declaration files left out), as paths relative to the repository. */
export async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found = await Promise.all(
    entries.map(async (entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
    }),
  );
  return found.flat().sort();
}

/** Every source file of the house. */
export async function allSourceFiles(): Promise<string[]> {
  return (await Promise.all(SOURCE_ROOTS.map(sourceFiles))).flat();
}

/** `lib/model/core/token.ts` → `lib/model/core/token`: how imports name a file. */
export function withoutExtension(file: string): string {
  return file.replace(SOURCE, '');
}
