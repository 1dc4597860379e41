import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WireEvent } from '../core/wire';
import {
  languageOf,
  runFaults,
  runnerLabel,
  runParts,
  runWords,
  type WallClientRun,
  withClientRun,
} from './client-runs';

test('a run says its language from its script, then its program, else names its program', () => {
  assert.equal(languageOf('python3 worker.py'), 'Python');
  assert.equal(languageOf('python3.12'), 'Python');
  assert.equal(languageOf('bash worker.sh'), 'bash');
  assert.equal(languageOf('uv client.py'), 'Python');
  assert.equal(languageOf('node client.mjs'), 'JavaScript');
  assert.equal(languageOf('client.rb'), 'Ruby');
  assert.equal(languageOf('psql'), 'psql');
  assert.equal(languageOf('my-lock-client'), 'my-lock-client');
  assert.equal(languageOf(''), 'a program');
});

const started = (id: number, actor: string, exec?: string): WireEvent => ({
  id,
  lab: 'lab',
  at: id * 1000,
  actor,
  kind: 'worker_started',
  detail: exec ? { exec } : {},
});

test("a run's faults are its own lane's: another lane's made-up token is not its fault", () => {
  const history: WireEvent[] = [
    started(1, 'A', 'python3 faulty.py'),
    { id: 2, lab: 'lab', at: 2000, actor: 'A', kind: 'lease_acquired', token: 5, detail: {} },
    { id: 3, lab: 'lab', at: 3000, actor: 'A', kind: 'write_accepted', token: 1, detail: {} },
    { id: 4, lab: 'lab', at: 4000, actor: 'B', kind: 'write_accepted', token: 99, detail: {} },
    { id: 5, lab: 'lab', at: 5000, actor: 'A', kind: 'worker_stopped', detail: { exec: 'python3 faulty.py' } },
  ];
  assert.deepEqual(runFaults(history, 'A'), [
    { kind: 'ungranted-token', words: 'wrote with a token it was never granted' },
  ]);
  assert.deepEqual(runFaults(history, 'B'), []);
});

const run = (over: Partial<WallClientRun>): WallClientRun => ({
  id: 1,
  lab: 'p-abcdefghij',
  labTitle: 'No fencing · private lab',
  actor: 'A',
  program: 'python3 worker.py',
  language: 'Python',
  state: 'running',
  faults: [],
  cleared: false,
  hasHistory: false,
  at: 0,
  ...over,
});

test('the marks are apart from the words, for a page to hide from screen readers: the words say it all', () => {
  assert.deepEqual(runParts(run({})), [{ mark: '▶', words: 'running' }]);
  assert.deepEqual(
    runParts(
      run({
        state: 'ended',
        ended: { how: 'crashed', reason: 'the trainer crashed it (SIGKILL to its process group)' },
        faults: [{ kind: 'wrote-after-refusal', words: 'kept writing after a refusal' }],
      }),
    ),
    [
      { mark: '■', words: 'the trainer crashed it (SIGKILL to its process group)' },
      { mark: '✗', words: 'kept writing after a refusal' },
    ],
  );
  const cleared = runParts(run({ state: 'ended', ended: { how: 'stopped', reason: '' }, faults: undefined }));
  assert.deepEqual(cleared[0], { mark: '■', words: 'stopped' });
  assert.equal(cleared[1]?.mark, undefined, 'no mark: the words stand alone');
  assert.match(cleared[1]?.words ?? '', /^what it did is not known/);
  for (const part of [...runParts(run({ state: 'silent' })), ...cleared]) {
    assert.doesNotMatch(part.words, /[▶…■✓✗]/, 'no mark left in the words');
  }
});

test('the wall says how a run went: running, silent, ended with its reason and faults (or not known), replaced, restarted', () => {
  assert.equal(runWords(run({})), '▶ running');
  assert.match(runWords(run({ state: 'silent' })), /^… no word from its runner/);
  assert.equal(
    runWords(run({ state: 'ended', ended: { how: 'stopped', reason: 'your program exited with code 0' } })),
    '■ your program exited with code 0 · ✓ no fault seen',
  );
  assert.equal(
    runWords(
      run({
        state: 'ended',
        ended: { how: 'crashed', reason: 'the trainer crashed it (SIGKILL to its process group)' },
        faults: [{ kind: 'wrote-after-refusal', words: 'kept writing after a refusal' }],
      }),
    ),
    '■ the trainer crashed it (SIGKILL to its process group) · ✗ kept writing after a refusal',
  );
  assert.equal(
    runWords(run({ state: 'ended', ended: { how: 'replaced', reason: '' } })),
    '■ another worker took its name',
  );
  assert.equal(runnerLabel(run({})), "the trainer's machine");
  assert.equal(runnerLabel(run({ trainee: '3f9a77', name: 'Sam' })), 'Sam · 3f9a');
  assert.equal(runnerLabel(run({ trainee: '3f9a77' })), 'a trainee · 3f9a');
});

test('the live feed never takes an ended run back to running, and keeps the newest run first', () => {
  const ended = run({ id: 2, state: 'ended', ended: { how: 'stopped', reason: 'x' } });
  assert.deepEqual(withClientRun([ended], run({ id: 2 })), [ended]);
  const runs = withClientRun(withClientRun([], run({ id: 1 })), run({ id: 3 }));
  assert.deepEqual(
    runs.map((one) => one.id),
    [3, 1],
  );
  assert.equal(withClientRun(runs, ended).length, 3);
});
