import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, beforeEach, test } from 'node:test';
import { isFencingError } from '../lib/model/core/errors';
import { bumpLabGeneration } from './lab-generation';
import { answerPoll, askPoll, readOwnAnswers, readRunPolls, revealPoll, revealPollsAtStep } from './polls';
import { closePool, getPool, newClient } from './pool';

/*
 * The room's questions, through the app role's functions (db/functions/fl_poll_*.sql) on the real
 * database: one answer per trainee, none after the reveal or for a closed question, and no tallies
 * read before the reveal.
 */

const LAB = 'no-fencing';
const trainee = () => randomBytes(32).toString('hex');
const ask = (question = 'Will A’s late write be accepted?', step = 5) =>
  askPoll({ lab: LAB, step, question, choices: ['Yes', 'No'] });
const refusedAs = (code: string) => (error: unknown) => isFencingError(error) && error.code === code;

after(closePool);
// Each test on a run of its own: the questions of earlier runs are not the lab's now.
beforeEach(() => bumpLabGeneration(LAB, getPool()));

test('one answer per trainee, changed by their next one; the count grows, the tallies stay hidden until the reveal', async () => {
  const poll = await ask();
  const [tina, tom] = [trainee(), trainee()];
  await answerPoll({ lab: LAB, poll, ownerHash: tina, choice: 0 });
  await answerPoll({ lab: LAB, poll, ownerHash: tom, choice: 0 });
  await answerPoll({ lab: LAB, poll, ownerHash: tina, choice: 1 });
  const [open] = await readRunPolls(LAB);
  assert.equal(open?.answered, 2, 'two trainees, two answers, however often one changed it');
  assert.equal(open?.state, 'open');
  assert.equal('tallies' in (open ?? {}), false, 'no tallies before the reveal');
  assert.deepEqual(await readOwnAnswers(LAB, tina), [{ poll, choice: 1 }]);

  assert.equal(await revealPoll(LAB, poll), true);
  const [revealed] = await readRunPolls(LAB);
  assert.deepEqual(revealed?.tallies, [1, 1]);
  assert.equal(revealed?.state, 'revealed');
  assert.equal(await revealPoll(LAB, poll), false, 'revealed once');
});

test('an answer after the reveal is refused, and changes nothing', async () => {
  const poll = await ask();
  const tina = trainee();
  await answerPoll({ lab: LAB, poll, ownerHash: tina, choice: 0 });
  assert.equal(await revealPollsAtStep(LAB, 4), 0, 'showing an earlier step reveals nothing');
  assert.equal(await revealPollsAtStep(LAB, 5), 1, 'showing the step asked about reveals it');
  await assert.rejects(answerPoll({ lab: LAB, poll, ownerHash: tina, choice: 1 }), refusedAs('poll_closed'));
  await assert.rejects(answerPoll({ lab: LAB, poll, ownerHash: trainee(), choice: 1 }), refusedAs('poll_closed'));
  assert.deepEqual((await readRunPolls(LAB))[0]?.tallies, [1, 0]);
});

test('a closed question (a newer one asked, or the lab reset since) takes no answer', async () => {
  const first = await ask('First?');
  const second = await ask('Second?', 6);
  assert.deepEqual(
    (await readRunPolls(LAB)).map((p) => [p.question, p.state]),
    [
      ['First?', 'closed'],
      ['Second?', 'open'],
    ],
  );
  await assert.rejects(
    answerPoll({ lab: LAB, poll: first, ownerHash: trainee(), choice: 0 }),
    refusedAs('poll_closed'),
  );
  await bumpLabGeneration(LAB, getPool());
  await assert.rejects(
    answerPoll({ lab: LAB, poll: second, ownerHash: trainee(), choice: 0 }),
    refusedAs('poll_closed'),
  );
  assert.deepEqual(await readRunPolls(LAB), [], 'a new run has no questions yet');
  assert.equal(await revealPoll(LAB, second), false, 'nor reveals one of an earlier run');
});

test('a choice the question does not have, a question of another lab, or a private lab is refused', async () => {
  const poll = await ask();
  await assert.rejects(answerPoll({ lab: LAB, poll, ownerHash: trainee(), choice: 2 }), refusedAs('invalid_input'));
  await assert.rejects(
    answerPoll({ lab: 'fenced', poll, ownerHash: trainee(), choice: 0 }),
    refusedAs('invalid_input'),
  );
  await assert.rejects(
    askPoll({ lab: 'p-0000000000', step: 2, question: 'Q?', choices: ['a', 'b'] }),
    refusedAs('invalid_input'),
  );
  assert.equal((await readRunPolls(LAB))[0]?.answered, 0);
});

test('a run holds at most 20 questions, a question at most 500 answers (a room, not a script)', async () => {
  for (let i = 0; i < 20; i++) await ask(`Question ${i + 1}?`);
  await assert.rejects(ask('One more?'), refusedAs('limit_reached'));
  assert.equal((await readRunPolls(LAB)).length, 20);
  const poll = (await readRunPolls(LAB)).at(-1)?.id ?? 0;
  const first = trainee();
  await answerPoll({ lab: LAB, poll, ownerHash: first, choice: 0 });
  for (let i = 1; i < 500; i++) await answerPoll({ lab: LAB, poll, ownerHash: trainee(), choice: i % 2 });
  await assert.rejects(answerPoll({ lab: LAB, poll, ownerHash: trainee(), choice: 0 }), refusedAs('limit_reached'));
  await answerPoll({ lab: LAB, poll, ownerHash: first, choice: 1 });
  assert.equal((await readRunPolls(LAB)).at(-1)?.answered, 500, 'one already counted may still change their answer');
});

test('the app role cannot write the questions or answers itself: only through the functions', async () => {
  const poll = await ask();
  for (const sql of [
    `UPDATE polls SET state = 'open' WHERE id = ${poll}`,
    `INSERT INTO poll_answers (poll, owner_hash, choice) VALUES (${poll}, 'x', 0)`,
    `DELETE FROM poll_answers WHERE poll = ${poll}`,
  ]) {
    await assert.rejects(getPool().query(sql), (e: { code?: string }) => e.code === '42501', sql);
  }
});

test('the rules hold in the table too: one open question per lab, 2 to 4 choices', async () => {
  const owner = newClient();
  await owner.connect();
  try {
    await ask();
    await assert.rejects(
      owner.query(
        `INSERT INTO polls (lab, generation, step, question, choices)
         SELECT id, generation, 3, 'Another?', ARRAY['a', 'b'] FROM labs WHERE id = $1`,
        [LAB],
      ),
      (e: { code?: string }) => e.code === '23505',
    );
    await assert.rejects(
      askPoll({ lab: LAB, step: 3, question: 'One choice?', choices: ['only'] }),
      (e: { code?: string; cause?: { code?: string } }) => (e.cause ?? e).code === '23514',
    );
  } finally {
    await owner.end();
  }
});
