import path from 'node:path';

/*
 * FENCING_LAB_DATA_DIR, read here and nowhere else (issue 37): where the embedded database, the
 * launcher's state, the failover lab's cluster and the soak reports live, `.data/` under the project
 * (git-ignored) unless it says otherwise. Not one of the room's checked settings (room-settings.ts):
 * any path is usable, and its default needs the project's folder, which its two callers find their
 * own ways: the launcher's programs from their own file (lib/launcher/paths.ts), the app server, which
 * Next bundles, from its working folder (lib/server/data-dir.ts).
 *
 * Next bundles this file: the `turbopackIgnore` comments keep the build from tracing the whole project
 * through a path known only at run time (docs/how-it-works.md, "a quiet build").
 */

/** The data directory, as an absolute path; `projectRoot` is where its default `.data/` is. */
export function readDataDir(projectRoot: string): string {
  const root = process.env.FENCING_LAB_DATA_DIR || path.join(/*turbopackIgnore: true*/ projectRoot, '.data');
  return path.resolve(/*turbopackIgnore: true*/ root);
}
