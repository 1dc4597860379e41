import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '../model/core/errors';
import { parseWorkerArgs } from './args';

const env = {} as NodeJS.ProcessEnv;
const base = ['--db', 'postgres://w:p@127.0.0.1:5432/fencing_lab', '--lab', 'drifting-clock', '--name', 'A'];

test('--clock-slow-percent: the drifting clock, in whole percent from 0 to 90', () => {
  assert.equal(parseWorkerArgs([...base, '--clock-slow-percent', '75'], env).settings.clockSlowPercent, 75);
  assert.equal(parseWorkerArgs(base, env).settings.clockSlowPercent, undefined, 'absent: the clock keeps time');
  for (const [bad, words] of [
    ['91', /--clock-slow-percent: clock drift must be at most 90 % slow/],
    ['-5', /--clock-slow-percent: clock drift must be at least 0 % slow/],
    ['12.5', /--clock-slow-percent: clock drift must be a whole percentage/],
    ['fast', /--clock-slow-percent: clock drift must be a number/],
  ] as const) {
    assert.throws(
      () => parseWorkerArgs([...base, `--clock-slow-percent=${bad}`], env),
      (error: unknown) => error instanceof UsageError && words.test(error.message),
      bad,
    );
  }
});

test("--lease-clock: whose clock the worker judges its lease by, its own or the database's", () => {
  assert.equal(parseWorkerArgs([...base, '--lease-clock', 'database'], env).settings.leaseClock, 'database');
  assert.equal(parseWorkerArgs([...base, '--lease-clock=own'], env).settings.leaseClock, 'own');
  assert.equal(parseWorkerArgs(base, env).settings.leaseClock, undefined, 'absent: its own');
  assert.throws(
    () => parseWorkerArgs([...base, '--lease-clock=ntp'], env),
    (error: unknown) =>
      error instanceof UsageError &&
      /^--lease-clock: a worker judges its lease by one of: own, database$/.test(error.message),
  );
});

test('--retry-after-ms: the delayed packet client timeout, in whole milliseconds from 200 to 60000', () => {
  assert.equal(parseWorkerArgs([...base, '--retry-after-ms', '4000'], env).settings.retryAfterMs, 4000);
  assert.equal(parseWorkerArgs(base, env).settings.retryAfterMs, undefined, 'absent: the client waits');
  for (const [bad, words] of [
    ['100', /--retry-after-ms: client timeout must be at least 200 ms/],
    ['60001', /--retry-after-ms: client timeout must be at most 60000 ms/],
    ['soon', /--retry-after-ms: client timeout must be a number/],
  ] as const) {
    assert.throws(
      () => parseWorkerArgs([...base, `--retry-after-ms=${bad}`], env),
      (error: unknown) => error instanceof UsageError && words.test(error.message),
      bad,
    );
  }
});
