import 'server-only';
import path from 'node:path';

/**
 * A folder under the app's data directory: the launcher's (lib/launcher/paths.ts, which this layer may not import),
 * the same setting and the same default, since the app server runs in the project's root.
 *
 * The data directory is known only at run time, so the build must not follow these paths: without the
 * `turbopackIgnore` comments Turbopack cannot scope the path to a folder, warns "Dynamic filesystem access causes
 * tracing of the whole project" and copies every file of the repository into the server's traces.
 */
export function dataSubdir(name: string): string {
  const root = process.env.FENCING_LAB_DATA_DIR || path.join(/*turbopackIgnore: true*/ process.cwd(), '.data');
  return path.join(/*turbopackIgnore: true*/ path.resolve(/*turbopackIgnore: true*/ root), name);
}
