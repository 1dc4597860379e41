import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { UsageError } from '../model/core/errors';
import { parseSoakArgs } from './args';

test('the soak takes --minutes and an optional --seed, checked', () => {
  assert.deepEqual(parseSoakArgs(['--minutes', '2']), { minutes: 2, seed: 1 });
  assert.deepEqual(parseSoakArgs(['--minutes', '1.5', '--seed', '42']), { minutes: 1.5, seed: 42 });
  assert.equal(parseSoakArgs(['--help']), 'help');
  for (const [argv, said] of [
    [[], /--minutes is required/],
    [['--minutes', 'ten'], /--minutes must be a number/],
    [['--minutes', ''], /--minutes must be a number/],
    [['--minutes', '0'], /at least 0\.5/],
    [['--minutes', '2000'], /at most 1440/],
    [['--minutes', '2', '--seed', '1.5'], /--seed must be a whole number/],
    [['--minutes', '2', '--seed=-1'], /--seed must be at least 0/],
    [['--minutes', '2', '--lab', 'fenced'], /unknown option --lab/],
    [['--minutes', '2', 'extra'], /extra/],
  ] as const) {
    assert.throws(
      () => parseSoakArgs([...argv]),
      (error: unknown) => error instanceof UsageError && said.test(error.message),
    );
  }
});

test('npm run soak with a bad command line says why and exits 2, before it starts anything', () => {
  const run = spawnSync(
    process.execPath,
    ['--conditions=react-server', '--import', 'tsx', 'lib/soak/main.ts', '--minutes', 'soon'],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /^usage: npm run soak -- --minutes N/);
  assert.match(run.stderr, /--minutes must be a number, got "soon"/);
});
