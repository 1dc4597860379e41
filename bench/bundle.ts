import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { PROJECT_ROOT } from '../lib/launcher/paths';
import type { Figure } from './stats';

/*
 * First-load JavaScript of the lab page (`npm run bench -- bundle`), from the production build in
 * .next, without a browser: the scripts every page loads (the build manifest's root main files) and
 * those the lab page's layout and page need (its client reference manifest's entry files), each
 * gzipped (level 6, as a server compresses it). Scripts a page imports later (on a click) are not in it.
 */

const GOAL_BYTES = 200 * 1024;
const PAGE = '/labs/[lab]/page';

export async function benchBundle(): Promise<Figure[]> {
  const next = path.join(PROJECT_ROOT, '.next');
  const build = JSON.parse(await readFile(path.join(next, 'build-manifest.json'), 'utf8')) as {
    rootMainFiles?: string[];
  };
  const manifestFile = path.join(next, 'server/app/labs/[lab]/page_client-reference-manifest.js');
  const source = await readFile(manifestFile, 'utf8').catch(() => {
    throw new Error(`no ${path.relative(PROJECT_ROOT, manifestFile)}: run \`npm run build\` first`);
  });
  // The manifest is a script that assigns globalThis.__RSC_MANIFEST[page]; its text is JSON after the `=`.
  const json = source.slice(source.indexOf(`[${JSON.stringify(PAGE)}] = `) + PAGE.length + 7).replace(/;\s*$/, '');
  const manifest = JSON.parse(json) as { entryJSFiles?: Record<string, string[]> };
  if (!build.rootMainFiles || !manifest.entryJSFiles) {
    throw new Error('the build manifests no longer have rootMainFiles / entryJSFiles: bench/bundle.ts needs updating');
  }
  const files = new Set([...build.rootMainFiles, ...Object.values(manifest.entryJSFiles).flat()]);
  const sizes = await Promise.all(
    [...files].map(async (file) => {
      const bytes = await readFile(path.join(next, file));
      return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 6 }).length };
    }),
  );
  const gzip = sizes.reduce((sum, s) => sum + s.gzip, 0);
  const raw = sizes.reduce((sum, s) => sum + s.raw, 0);
  const largest = [...sizes].sort((a, b) => b.gzip - a.gzip)[0];
  return [
    {
      name: 'first-load JavaScript of /labs/fenced (gzip)',
      value: `${(gzip / 1024).toFixed(1)} kB`,
      goal: '≤ 200 kB',
      met: gzip <= GOAL_BYTES,
      note: `${sizes.length} scripts, ${(raw / 1024).toFixed(0)} kB unzipped; largest ${path.basename(largest?.file ?? '')} ${((largest?.gzip ?? 0) / 1024).toFixed(1)} kB`,
    },
  ];
}
