import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { readDataDir } from './data-dir';

/*
 * FENCING_LAB_DATA_DIR has one reader, which the launcher's programs and the app server both use:
 * the setting as an absolute path, or `.data/` under the project's folder the caller names.
 */

const previous = process.env.FENCING_LAB_DATA_DIR;
after(() => {
  if (previous === undefined) delete process.env.FENCING_LAB_DATA_DIR;
  else process.env.FENCING_LAB_DATA_DIR = previous;
});

test('unset or empty: .data under the project; set: the setting, made absolute', () => {
  delete process.env.FENCING_LAB_DATA_DIR;
  assert.equal(readDataDir('/srv/fencing-lab'), '/srv/fencing-lab/.data');
  process.env.FENCING_LAB_DATA_DIR = '';
  assert.equal(readDataDir('/srv/fencing-lab/'), '/srv/fencing-lab/.data');
  process.env.FENCING_LAB_DATA_DIR = '/var/lib/fencing-lab/';
  assert.equal(readDataDir('/srv/fencing-lab'), '/var/lib/fencing-lab');
  process.env.FENCING_LAB_DATA_DIR = 'scratch/data';
  assert.equal(readDataDir('/srv/fencing-lab'), path.resolve('scratch/data'), 'relative to the working folder');
});
