import 'server-only';
import path from 'node:path';
import { readDataDir } from '../config/data-dir';

/**
 * A folder under the app's data directory (lib/config/data-dir.ts, the one reader of the setting, which
 * the launcher's programs read too), whose default is under the working folder: the app server runs in
 * the project's root.
 *
 * The data directory is known only at run time, so the build must not follow these paths: without the
 * `turbopackIgnore` comments Turbopack cannot scope the path to a folder, warns "Dynamic filesystem access causes
 * tracing of the whole project" and copies every file of the repository into the server's traces.
 */
export function dataSubdir(name: string): string {
  return path.join(/*turbopackIgnore: true*/ readDataDir(/*turbopackIgnore: true*/ process.cwd()), name);
}
