import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readLabSnapshot } from '../../db/lab-snapshot';
import { closePool } from '../../db/pool';
import { readShownStep } from '../../db/shown-step';
import { sharedLab } from '../model/lab/lab-instance';
import { getSupervisor } from '../supervisor/supervisor';
import { endListenSessions } from '../testing/end-listen-sessions';
import { openLabFeed } from '../testing/sse-client';
import { waitFor } from '../testing/wait';
import { newOwnerSecret, trainerKey, trainerProofOf } from './access';
import * as commands from './lab-commands';

/*
 * The walkthrough step the trainer shows is recorded for the lab, and only by one who may drive it:
 * every watcher's page shows that step (its feed's snapshots carry it). A reset clears it.
 */

const LAB = 'token-as-text';
const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const WATCHER = {};

before(async () => {
  assert.ok((await commands.resetLab({ lab: LAB }, TRAINER)).ok);
});
after(async () => {
  await getSupervisor().shutdown();
  await endListenSessions();
  await closePool();
});

test("the trainer's step is recorded for the lab and reaches its watchers' feed; a watcher's request is refused", async () => {
  assert.equal(await readShownStep(LAB), undefined, 'nothing is shown on a lab just reset');
  const recorded = await commands.recordWalkthroughStep({ lab: LAB, step: 3 }, TRAINER);
  assert.deepEqual(recorded, { ok: true, data: { lab: LAB, step: 3 } });
  assert.equal(await readShownStep(LAB), 3);
  assert.equal((await readLabSnapshot(sharedLab(LAB))).walkthroughStep, 3);

  for (const who of [WATCHER, { trainerProof: 'guessed' }, { ownerSecret: newOwnerSecret() }]) {
    const refused = await commands.recordWalkthroughStep({ lab: LAB, step: 5 }, who);
    assert.equal(refused.ok, false);
    assert.equal(refused.ok ? undefined : refused.error.code, 'forbidden');
  }
  assert.equal(await readShownStep(LAB), 3, "a watcher's request changed nothing");

  // A watcher's feed: the trainer's next step reaches it in a snapshot.
  const feed = openLabFeed(LAB);
  try {
    const snapshots = () => feed.received.filter((m) => m.event === 'snapshot');
    await waitFor(() => snapshots().length >= 2, 'two snapshots (the first after the history, then a tick)');
    const seen = snapshots().length;
    assert.equal(snapshots().at(-1)?.data.walkthroughStep, 3);
    assert.ok((await commands.recordWalkthroughStep({ lab: LAB, step: 4 }, TRAINER)).ok);
    await waitFor(
      () => snapshots().find((m, i) => i >= seen && m.data.walkthroughStep === 4),
      'a snapshot with step 4',
      { timeoutMs: 10_000 },
    );
  } finally {
    await feed.close();
  }
});

test('a step outside the walkthrough, or not a whole number, is refused; a reset clears the step', async () => {
  assert.ok((await commands.recordWalkthroughStep({ lab: LAB, step: 6 }, TRAINER)).ok);
  for (const step of [7, -1, 2.5, '3', undefined]) {
    const refused = await commands.recordWalkthroughStep({ lab: LAB, step }, TRAINER);
    assert.equal(refused.ok ? undefined : refused.error.code, 'invalid_input', `step ${String(step)}`);
  }
  assert.equal(await readShownStep(LAB), 6);

  assert.ok((await commands.resetLab({ lab: LAB }, TRAINER)).ok);
  assert.equal(await readShownStep(LAB), undefined, 'the reset cleared the step');
  assert.equal('walkthroughStep' in (await readLabSnapshot(sharedLab(LAB))), false);
  // The next run's first step is recorded anew.
  assert.ok((await commands.recordWalkthroughStep({ lab: LAB, step: 0 }, TRAINER)).ok);
  assert.equal(await readShownStep(LAB), 0);
});
