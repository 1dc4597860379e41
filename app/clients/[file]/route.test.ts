import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { CLIENT_FILE_NAMES, CLIENT_FILES } from '@/lib/model/lab/client-files';
import { GET } from './route';

/*
 * The files a trainee saves to run their own client with Python alone: each by its name, byte for
 * byte the project's file, as text the browser shows and never runs; a path, a `..` or another
 * file's name finds nothing (the server runs in the project's root, where package.json and .data are).
 */

const get = (file: string) => GET(new Request('http://localhost/'), { params: Promise.resolve({ file }) });

test('each file the room serves, byte for byte the project’s, as plain text', async () => {
  for (const name of CLIENT_FILE_NAMES) {
    const response = await get(name);
    assert.equal(response.status, 200, name);
    assert.equal(response.headers.get('content-type'), 'text/plain; charset=utf-8', name);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff', name);
    assert.equal(await response.text(), await readFile(CLIENT_FILES[name], 'utf8'), name);
  }
  assert.match(await (await get('runner.py')).text(), /^#!\/usr\/bin\/env python3/);
});

test('anything but a listed name finds nothing, and says what there is', async () => {
  for (const file of [
    'package.json',
    '../package.json',
    '..%2Fpackage.json',
    'clients/python/runner.py',
    'runner.py/',
    'Runner.py',
    '.env',
    '__proto__',
    'constructor',
    '',
  ]) {
    const response = await get(file);
    assert.equal(response.status, 404, file);
    assert.equal(
      await response.text(),
      'No such file. The room serves runner.py, minimal.py, worker.py, worker.sh, protocol.md.\n',
      file,
    );
  }
});
