import { fileURLToPath } from 'node:url';
import { readDataDir } from '../config/data-dir';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Where the embedded database and the launcher's state live: `.data/` (git-ignored) unless FENCING_LAB_DATA_DIR says
 * otherwise (lib/config/data-dir.ts, its one reader).
 */
export function dataDir(): string {
  return readDataDir(PROJECT_ROOT);
}

export const EMBEDDED_PG_PREFERRED_PORT = 54329;
