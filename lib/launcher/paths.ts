import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where the embedded database and the launcher's state live: `.data/` (git-ignored) unless overridden. */
export function dataDir(): string {
  return path.resolve(process.env.FENCING_LAB_DATA_DIR || path.join(PROJECT_ROOT, '.data'));
}

export const EMBEDDED_PG_PREFERRED_PORT = 54329;
