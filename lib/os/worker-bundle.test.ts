import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../launcher/paths';
import { bundleWorker } from './worker-bundle';

/*
 * The bundle a server forks its workers from: the same content gives the same directory (two commands
 * bundling at once share it), and the bundled program runs without tsx: its usage, with exit 0.
 */

test('the worker bundle: one directory per content, and the program runs from it without tsx', async () => {
  const first = await bundleWorker(PROJECT_ROOT);
  const again = await bundleWorker(PROJECT_ROOT);
  assert.equal(again.dir, first.dir);
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=react-server', first.main, '--help'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  assert.match(stdout, /npm run worker/);
});
