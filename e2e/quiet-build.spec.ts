import { expect, test } from '@playwright/test';
import { buildIsStale, sourceFingerprint, tracedProjectFiles } from '../lib/launcher/build-freshness';

/*
 * `npm start` (this suite's web server) built the app when its sources changed. The build traces only what the
 * server needs: a file path Turbopack cannot scope to a folder makes it print "Dynamic filesystem access causes
 * tracing of the whole project" and trace every file of the repository, which this test sees without a build of
 * its own. The data directory's paths are the known case (lib/server/data-dir.ts, lib/config/data-dir.ts:
 * turbopackIgnore).
 */

/** The one source file the server needs at run time: the supervisor spawns it as each worker process. */
const SPAWNED = ['lib/worker/main.ts'];

test("the build traces none of the project's own files but the worker the server spawns", async () => {
  const root = process.cwd();
  // A reused server (outside CI) may run an older build; the launcher rebuilds it at the next `npm start`.
  test.skip(await buildIsStale(root, await sourceFingerprint(root)), 'the build is older than the sources');
  expect(await tracedProjectFiles(root)).toEqual(SPAWNED);
});
