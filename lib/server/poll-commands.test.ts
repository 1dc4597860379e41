import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { closePool } from '../../db/pool';
import type { LabSnapshot } from '../model/core/wire';
import { getSupervisor } from '../supervisor/supervisor';
import { endListenSessions } from '../testing/end-listen-sessions';
import { openLabFeed } from '../testing/sse-client';
import { waitFor } from '../testing/wait';
import { newOwnerSecret, trainerKey, trainerProofOf } from './access';
import * as commands from './lab-commands';
import * as polls from './poll-commands';

/*
 * Who may ask, answer and reveal a question to the room, and what a watcher's feed carries of it:
 * the count as answers come, the tallies only once the trainer reveals them or shows the step.
 */

const LAB = 'token-as-text';
const TRAINER = { trainerProof: trainerProofOf(trainerKey()) };
const [TINA, TOM] = [newOwnerSecret(), newOwnerSecret()];
const QUESTION = { lab: LAB, step: 5, question: "Will A's late write be accepted?", choices: ['Yes', 'No'] };

before(async () => {
  assert.ok((await commands.resetLab({ lab: LAB }, TRAINER)).ok);
});
after(async () => {
  await getSupervisor().shutdown();
  await endListenSessions();
  await closePool();
});

const pollOf = (result: Awaited<ReturnType<typeof polls.askRoom>>) => (result.ok ? result.data.poll : -1);
const answer = (ownerSecret: string, poll: number, choice: number) =>
  polls.answerQuestion({ lab: LAB, poll, choice }, { credentials: { ownerSecret }, ownerSecret });

test('only the trainer asks and reveals; the trainer does not answer; a refusal says why in words', async () => {
  const watcherAsks = await polls.askRoom(QUESTION, { ownerSecret: TINA });
  assert.equal(watcherAsks.ok ? undefined : watcherAsks.error.code, 'forbidden');
  const tooFar = await polls.askRoom({ ...QUESTION, step: 7 }, TRAINER);
  assert.deepEqual(
    tooFar.ok ? undefined : tooFar.error.message,
    'the walkthrough has 7 steps: ask about one of steps 2 to 7',
  );
  const empty = await polls.askRoom({ ...QUESTION, choices: ['Yes', ''] }, TRAINER);
  assert.deepEqual(empty.ok ? undefined : empty.error.message, 'choice 2 is empty: type it, or remove it');

  const poll = pollOf(await polls.askRoom(QUESTION, TRAINER));
  const trainerAnswers = await polls.answerQuestion(
    { lab: LAB, poll, choice: 0 },
    { credentials: TRAINER, ownerSecret: TINA },
  );
  assert.equal(trainerAnswers.ok ? undefined : trainerAnswers.error.code, 'forbidden');
  const watcherReveals = await polls.revealAnswers({ lab: LAB, poll }, { ownerSecret: TINA });
  assert.equal(watcherReveals.ok ? undefined : watcherReveals.error.code, 'forbidden');
  assert.ok((await polls.revealAnswers({ lab: LAB, poll }, TRAINER)).ok);
  const late = await answer(TOM, poll, 1);
  assert.equal(
    late.ok ? undefined : late.error.message,
    'the trainer revealed the answers to this question: it takes no more answers',
  );
});

test("a watcher's feed counts the answers as they come, and shows the tallies once the step asked about is shown", async () => {
  const poll = pollOf(await polls.askRoom(QUESTION, TRAINER));
  const feed = openLabFeed(LAB);
  try {
    const latest = () =>
      (feed.received.filter((m) => m.event === 'snapshot').at(-1)?.data as LabSnapshot | undefined)?.polls?.find(
        (p) => p.id === poll,
      );
    await waitFor(() => latest()?.state === 'open', 'the question in a snapshot');
    assert.ok((await answer(TINA, poll, 0)).ok);
    assert.ok((await answer(TOM, poll, 0)).ok);
    assert.deepEqual(await answer(TOM, poll, 1), { ok: true, data: { poll, choice: 1 } });
    await waitFor(() => latest()?.answered === 2, 'two answers counted', { timeoutMs: 10_000 });
    assert.equal(latest()?.tallies, undefined, 'no tallies before the reveal');
    assert.deepEqual(await polls.ownAnswers({ lab: LAB }, { ownerSecret: TOM }), {
      ok: true,
      data: [{ poll, choice: 1 }],
    });

    assert.ok((await commands.recordWalkthroughStep({ lab: LAB, step: 4 }, TRAINER)).ok);
    assert.ok((await commands.recordWalkthroughStep({ lab: LAB, step: 5 }, TRAINER)).ok);
    await waitFor(() => latest()?.state === 'revealed', 'the reveal', { timeoutMs: 10_000 });
    assert.deepEqual(latest()?.tallies, [1, 1]);
  } finally {
    await feed.close();
  }
});
