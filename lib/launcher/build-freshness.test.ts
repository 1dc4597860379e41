import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { buildIsStale, recordBuild, sourceFingerprint } from './build-freshness';

/*
 * When `npm start` builds: with no build, with a build it did not record, and after a source file is
 * edited (even during the build, before BUILD_ID is written), added or deleted; not when nothing changed.
 */

async function project() {
  const root = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-build-'));
  await mkdir(path.join(root, 'lib', 'model'), { recursive: true });
  await mkdir(path.join(root, '.next'));
  await writeFile(path.join(root, 'lib', 'model', 'a.ts'), 'export const a = 1;\n');
  await writeFile(path.join(root, 'package.json'), '{}\n');
  return root;
}

async function build(root: string, during?: () => Promise<void>) {
  const sources = await sourceFingerprint(root);
  await during?.();
  await writeFile(path.join(root, '.next', 'BUILD_ID'), 'x');
  await recordBuild(root, sources);
}

test('no build, or a build the launcher did not record, is stale; a recorded one of the same sources is not', async () => {
  const root = await project();
  try {
    assert.equal(await buildIsStale(root, await sourceFingerprint(root)), true);
    await writeFile(path.join(root, '.next', 'BUILD_ID'), 'x');
    assert.equal(await buildIsStale(root, await sourceFingerprint(root)), true);
    await build(root);
    assert.equal(await buildIsStale(root, await sourceFingerprint(root)), false);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a file edited while the build ran makes the build stale, though the build is newer than the file', async () => {
  const root = await project();
  try {
    const file = path.join(root, 'lib', 'model', 'a.ts');
    await build(root, async () => {
      await writeFile(file, 'export const a = 2;\n');
      const past = new Date(Date.now() - 60_000);
      await utimes(file, past, past);
    });
    assert.equal(await buildIsStale(root, await sourceFingerprint(root)), true);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a source file added or deleted makes the build stale', async () => {
  const root = await project();
  try {
    await build(root);
    await writeFile(path.join(root, 'lib', 'model', 'b.ts'), 'export const b = 1;\n');
    assert.equal(await buildIsStale(root, await sourceFingerprint(root)), true);
    await build(root);
    await rm(path.join(root, 'lib', 'model', 'a.ts'));
    assert.equal(await buildIsStale(root, await sourceFingerprint(root)), true);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
