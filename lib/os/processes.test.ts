import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { identify, isSameProcess, waitForExit } from './processes';

/*
 * A leftover is signalled only when it is the very process recorded. A PID alone is not enough:
 * the system hands it out again, to anything.
 */

test('a live process is recognised by its recorded identity, and by nothing less', async () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const pid = child.pid as number;
  const recorded = identify(pid);
  try {
    assert.ok(recorded, 'a live process has an identity');
    assert.equal(isSameProcess(recorded), true);
    // The same PID, but another start time, command line, directory or boot: a stranger.
    for (const change of [
      { startTicks: String(Number(recorded.startTicks) + 1) },
      { commandLine: `${recorded.commandLine}x` },
      { cwd: '/somewhere/else' },
      { bootId: 'another-boot' },
    ]) {
      assert.equal(isSameProcess({ ...recorded, ...change }), false, JSON.stringify(change));
    }
    // A record with a PID only (an older state file) never matches.
    assert.equal(isSameProcess(undefined), false);
  } finally {
    child.kill('SIGKILL');
    await waitForExit(pid, 5_000);
  }
  assert.equal(isSameProcess(recorded), false, 'once it has exited, its record matches nothing');
});
