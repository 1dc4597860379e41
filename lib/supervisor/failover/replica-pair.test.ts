import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { connectFailoverServer, readReplicationState } from '../../../db/failover-cluster';
import { isAlive } from '../../os/processes';
import { waitFor } from '../../testing/wait';
import { processesOf } from './pg-server-process';
import { startReplicaPair } from './replica-pair';

test('the pair is two real PostgreSQL servers; cut stops the streaming, heal brings it back; stop leaves nothing', async () => {
  const pair = await startReplicaPair({ mode: 'async' });
  try {
    for (const server of [pair.primary, pair.standby]) {
      const cmdline = readFileSync(`/proc/${server.postmasterPid}/cmdline`, 'utf8');
      assert.match(cmdline, /postgres\0-D\0/, 'a postmaster from the shipped binaries');
    }
    const primary = await connectFailoverServer(pair.primaryUrl);
    try {
      assert.equal((await readReplicationState(primary))?.state, 'streaming');
      pair.cutReplication();
      await waitFor(async () => (await readReplicationState(primary)) === undefined, 'the walsender to go');
      pair.healReplication();
      await pair.waitForStandby();
      assert.equal((await readReplicationState(primary))?.state, 'streaming');
    } finally {
      await primary.end();
    }
    assert.ok((await pair.processes()).length >= 4);
  } finally {
    await pair.stop();
  }
  assert.deepEqual(await pair.processes(), [], 'no process of either server after stop');
});

test('kill -9 of the process that owns the pair leaves no PostgreSQL process of it', async () => {
  const owner = spawn(
    process.execPath,
    ['--conditions=react-server', '--import', 'tsx', 'lib/testing/failover-pair-owner.ts'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const started = await new Promise<{ dir: string; primaryPid: number; standbyPid: number }>((resolve, reject) => {
    let text = '';
    owner.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0] as string));
    });
    owner.once('exit', (code) => reject(new Error(`the owner exited with ${code} before the pair ran`)));
  });
  const dirs = [path.join(started.dir, 'primary'), path.join(started.dir, 'standby')];
  try {
    assert.ok(isAlive(started.primaryPid) && isAlive(started.standbyPid));
    assert.ok((await processesOf(dirs[0] as string)).length >= 3, 'the primary runs with its backends');
    owner.kill('SIGKILL');
    await waitFor(
      async () => (await Promise.all(dirs.map(processesOf))).flat().length === 0,
      'every process of the pair to end after its owner was killed',
    );
  } finally {
    if (owner.exitCode === null) owner.kill('SIGKILL');
    await rm(started.dir, { recursive: true, force: true });
  }
});
