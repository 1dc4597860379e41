import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { listEvents } from '../../db/events';
import { labJoinKey } from '../../db/labs';
import { closePool } from '../../db/pool';
import { toWire } from '../model/core/wire';
import { getSupervisor } from '../supervisor/supervisor';
import { pythonWithPsycopg } from '../testing/python';
import { type RemoteWorkerRun, startRemoteWorker } from '../testing/remote-worker-process';
import { waitFor } from '../testing/wait';
import { testWorkerLineUrl } from '../testing/worker-line';
import { newOwnerSecret } from './access';
import { type ClientStoryStatus, clientPauseStoryStatus, playClientPauseStory } from './client-pause-story';
import * as commands from './lab-commands';

/*
 * The "Your client" panel's button (issue 36), on the server: with the Python reference client run by
 * hand as A (`npm run worker -- … --name A --exec`), one press freezes A before its next write, lets B
 * take over, resumes A, and says how it ended; only the lab's owner may press it, not before A runs,
 * and a reset mid-story stops it in words.
 */

const PYTHON = `${pythonWithPsycopg() ?? 'python3'} clients/python/worker.py`;
const opened: { lab: string; owner: { ownerSecret: string } }[] = [];
const runs: RemoteWorkerRun[] = [];
let addresses = 0;

after(async () => {
  for (const run of runs) await run.stop();
  for (const { lab, owner } of opened) await commands.closePrivateLab({ lab }, owner);
  await getSupervisor().shutdown();
  await closePool();
});

async function privateLab(kind: 'fenced' | 'no-fencing') {
  const owner = { ownerSecret: newOwnerSecret() };
  addresses += 1;
  const result = await commands.openPrivateLab({ kind }, { ...owner, address: `198.19.7.${addresses}` });
  assert.ok(result.ok, JSON.stringify(result));
  opened.push({ lab: result.data.id, owner });
  return { lab: result.data.id, owner };
}

/** The person's own client as A, started by hand on their worker line. */
async function clientAsA(lab: string): Promise<RemoteWorkerRun> {
  const run = startRemoteWorker([
    '--db',
    await testWorkerLineUrl({ who: 'client-pause-story', lab }),
    '--lab',
    lab,
    '--join-key',
    (await labJoinKey(lab)) ?? '',
    '--name',
    'A',
    '--exec',
    PYTHON,
  ]);
  runs.push(run);
  await waitFor(
    async () => (await listEvents({ lab })).some((e) => e.actor === 'A' && e.kind === 'write_accepted'),
    `A's first write (it said: ${run.output()})`,
    { timeoutMs: 60_000 },
  );
  return run;
}

async function storyEnd(lab: string, owner: { ownerSecret: string }, timeoutMs: number): Promise<ClientStoryStatus> {
  return waitFor(
    async () => {
      const status = await clientPauseStoryStatus({ lab }, owner);
      assert.ok(status.ok, JSON.stringify(status));
      return status.data.state === 'done' || status.data.state === 'failed' ? status.data : undefined;
    },
    'the story to end',
    { timeoutMs },
  );
}

/*
 * Each test has a private lab of its own, so they run side by side, three at a time: most of each is
 * real time (a client starting, a lease running out while A is frozen, a heartbeat falling late).
 */
describe("the 'Your client' panel's pause story", { concurrency: 3 }, () => {
  test('refused in words: to anyone but the lab’s driver, and before A runs', { timeout: 30_000 }, async () => {
    const { lab, owner } = await privateLab('fenced');
    const stranger = await playClientPauseStory({ lab }, { ownerSecret: newOwnerSecret() });
    assert.equal(stranger.ok, false);
    assert.match(stranger.ok ? '' : stranger.error.message, /^no lab /);
    const early = await playClientPauseStory({ lab }, owner);
    assert.equal(early.ok, false);
    assert.match(early.ok ? '' : early.error.message, /^A is not running: start your client as A first/);
    const junk = await playClientPauseStory({ lab, worker: 'A' }, owner);
    assert.equal(junk.ok, false, 'an input with more than the lab is refused');
  });

  test('fenced, the Python client as A: frozen, B takes over, A resumed and its late write refused', {
    timeout: 150_000,
  }, async () => {
    const { lab, owner } = await privateLab('fenced');
    await clientAsA(lab);
    const played = await playClientPauseStory({ lab }, owner);
    assert.ok(played.ok, JSON.stringify(played));
    const again = await playClientPauseStory({ lab }, owner);
    assert.match(again.ok ? '' : again.error.message, /already playing/);
    const end = await storyEnd(lab, owner, 120_000);
    assert.equal(end.state, 'done', JSON.stringify(end));
    assert.match(
      end.state === 'done' ? end.words : '',
      /^A resumed: its late write with token \d+ was refused as stale, and the row keeps B's value\.$/,
    );
    const events = (await listEvents({ lab, afterId: played.data.mark })).map(toWire);
    const froze = events.find((e) => e.actor === 'A' && e.kind === 'pause_started');
    assert.equal(froze?.detail.trigger, 'critical-window');
    assert.equal(typeof froze?.detail.exec, 'string', 'A is the person’s program, frozen by its runner');
    const row = events.findLast((e) => e.kind === 'write_accepted');
    assert.equal(row?.actor, 'B', 'the row keeps B’s write');

    // Pressed again: B of the first story holds the lease and renews it, so it is ended first and
    // restarted once A's lease has run out again; the story ends the same way.
    const second = await playClientPauseStory({ lab }, owner);
    assert.ok(second.ok, JSON.stringify(second));
    const secondEnd = await storyEnd(lab, owner, 120_000);
    assert.equal(secondEnd.state, 'done', JSON.stringify(secondEnd));
    assert.match(
      secondEnd.state === 'done' ? secondEnd.words : '',
      /was refused as stale, and the row keeps B's value/,
    );
  });

  /** Presses the button and waits until the story has frozen A (its pause_started after the press). */
  async function playUntilAFreezes(lab: string, owner: Parameters<typeof playClientPauseStory>[1]): Promise<void> {
    const played = await playClientPauseStory({ lab }, owner);
    assert.ok(played.ok, JSON.stringify(played));
    await waitFor(
      async () =>
        (await listEvents({ lab, afterId: played.data.mark })).some(
          (e) => e.actor === 'A' && e.kind === 'pause_started',
        ),
      'A to freeze',
      { timeoutMs: 40_000 },
    );
  }

  test('A ended mid-story: stopped, in words', { timeout: 120_000 }, async () => {
    const { lab, owner } = await privateLab('no-fencing');
    const a = await clientAsA(lab);
    await playUntilAFreezes(lab, owner);
    await a.stop();
    const end = await storyEnd(lab, owner, 30_000);
    assert.equal(end.state, 'failed');
    assert.match(
      end.state === 'failed' ? end.message : '',
      /^The story stopped: A ended mid-story \(.+\) while waiting for /,
    );
  });

  test('A killed mid-story without a word (SIGKILL, no end recorded): stopped once its runner falls silent', {
    timeout: 120_000,
  }, async () => {
    const { lab, owner } = await privateLab('fenced');
    const a = await clientAsA(lab);
    await playUntilAFreezes(lab, owner);
    await a.stop(0);
    const end = await storyEnd(lab, owner, 40_000);
    assert.equal(end.state, 'failed');
    // Which step notices depends on the clock: a wait once A's heartbeat is 5 s late (two looks), or,
    // when B took over sooner, A's resume, which its dead runner cannot answer. Either way, in words.
    assert.match(
      end.state === 'failed' ? end.message : '',
      /^The story stopped: A (stopped answering the lab mid-story while waiting for |could not be resumed: )/,
    );
  });

  test('a reset mid-story stops it, in words', { timeout: 120_000 }, async () => {
    const { lab, owner } = await privateLab('no-fencing');
    await clientAsA(lab);
    await playUntilAFreezes(lab, owner);
    const reset = await commands.resetLab({ lab }, owner);
    assert.ok(reset.ok, JSON.stringify(reset));
    const end = await storyEnd(lab, owner, 30_000);
    assert.equal(end.state, 'failed');
    assert.equal(
      end.state === 'failed' ? end.message : '',
      'The story stopped: the lab was reset while the story played.',
    );
  });
});
