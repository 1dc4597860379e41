import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { GET as getHistory } from './history/[lab]/route';
import { GET as getReport } from './route';

/*
 * The soak reports' routes find a report by its id and a history by a lab id, both checked: a path
 * from the client (a ../, a slash, a file name) finds nothing, even where a file by that name exists.
 */

const ID = '20261201-031200-seed1';
let dataDir: string;
const previous = process.env.FENCING_LAB_DATA_DIR;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'fencing-lab-soak-routes-'));
  process.env.FENCING_LAB_DATA_DIR = dataDir;
  await mkdir(path.join(dataDir, 'soak', ID), { recursive: true });
  await writeFile(path.join(dataDir, 'soak', ID, 'report.html'), '<!doctype html><h1>Soak</h1>');
  await writeFile(path.join(dataDir, 'soak', ID, 'history-fenced.json'), '{"format":"fencing-lab-history"}');
  await writeFile(path.join(dataDir, 'secret.txt'), 'not for you');
});

after(async () => {
  if (previous === undefined) delete process.env.FENCING_LAB_DATA_DIR;
  else process.env.FENCING_LAB_DATA_DIR = previous;
  await rm(dataDir, { recursive: true, force: true });
});

const report = (id: string) => getReport(new Request('http://localhost/'), { params: Promise.resolve({ id }) });
const history = (id: string, lab: string) =>
  getHistory(new Request('http://localhost/'), { params: Promise.resolve({ id, lab }) });

test('a report by its id, as a page that runs no script', async () => {
  const response = await report(ID);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assert.equal(await response.text(), '<!doctype html><h1>Soak</h1>');
});

test("a lab's history by the report's id and the lab's, as a file to open in /replay", async () => {
  const response = await history(ID, 'fenced');
  assert.equal(response.status, 200);
  assert.match(
    response.headers.get('content-disposition') ?? '',
    /attachment; filename="fencing-lab-soak-.*-fenced\.json"/,
  );
  assert.equal(await response.text(), '{"format":"fencing-lab-history"}');
});

test('anything but a checked id finds nothing', async () => {
  for (const id of ['..', '../secret.txt', `${ID}/report.html`, '20261201-031200-seed2', '']) {
    assert.equal((await report(id)).status, 404, id);
  }
  for (const [id, lab] of [
    [ID, 'no-fencing'], // no such file in this report
    [ID, '../../secret.txt'],
    [ID, 'fenced.json'],
    ['..', 'fenced'],
  ] as const) {
    assert.equal((await history(id, lab)).status, 404, `${id} ${lab}`);
  }
  // A history is a download: answered in one place (lib/server/error-answers.ts), a code and words.
  assert.deepEqual(await (await history('..', 'fenced')).json(), {
    error: { code: 'not_found', message: 'no such history' },
  });
});

test('no such report is a page in words that leads back to the list, not an error body, and names no path', async () => {
  const response = await report('../secret.txt');
  assert.equal(response.status, 404);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const page = await response.text();
  assert.match(page, /<h1>No such soak report<\/h1>/);
  assert.match(page, /<a href="\/soak">All soak reports<\/a>/);
  assert.doesNotMatch(page, /secret|"error"/);
});
