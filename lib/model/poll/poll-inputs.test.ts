import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recorded } from '../../testing/histories';
import { parseHistoryFile, serializeHistory } from '../history/history-file';
import { factsFrom } from '../walkthrough/walkthrough';
import type { PollView } from './poll';
import { answerPollInput, askPollInput, revealPollInput } from './poll-inputs';
import { suggestedPoll } from './poll-suggestions';

/* What a browser may send about the room's questions, and the refusals in words that name the field. */

const ASK = { lab: 'fenced', step: 5, question: 'Will A’s late write be accepted?', choices: ['Yes', 'No'] };
const refusal = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.success ? undefined : result.error?.issues[0]?.message;

test('a question with 2 to 4 distinct choices is accepted, trimmed', () => {
  const parsed = askPollInput.parse({ ...ASK, question: '  Who wins?  ', choices: [' A ', 'B', 'Nobody'] });
  assert.deepEqual(parsed, { ...ASK, question: 'Who wins?', choices: ['A', 'B', 'Nobody'] });
});

test('a bad question is refused in plain words that name the field and the rule', () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ question: '   ' }, 'the question is empty: type what the room should predict'],
    [{ question: 'x'.repeat(201) }, 'the question is too long: at most 200 characters'],
    [{ choices: ['Yes'] }, 'a question needs 2 to 4 choices, not 1'],
    [{ choices: ['a', 'b', 'c', 'd', 'e'] }, 'a question needs 2 to 4 choices, not 5'],
    [{ choices: ['Yes', ' '] }, 'choice 2 is empty: type it, or remove it'],
    [{ choices: ['Yes', 'y'.repeat(61)] }, 'choice 2 is too long: at most 60 characters'],
    [{ choices: ['Yes', 'No', 'yes'] }, 'choices 1 and 3 say the same thing: make them differ'],
    [{ step: 0 }, 'a question is about a step after the first (the first resets the lab)'],
    [{ step: 2.5 }, 'the step must be a whole number'],
    [{ choices: 'Yes, No' }, 'the choices must be a list'],
  ];
  for (const [change, words] of cases) assert.equal(refusal(askPollInput.safeParse({ ...ASK, ...change })), words);
  assert.equal(askPollInput.safeParse({ ...ASK, extra: 1 }).success, false, 'nothing else is taken');
  assert.equal(askPollInput.safeParse({ ...ASK, lab: 'nowhere' }).success, false);
});

test('an answer names a question and one of its choices; a reveal, a question', () => {
  assert.deepEqual(answerPollInput.parse({ lab: 'fenced', poll: 3, choice: 1 }), { lab: 'fenced', poll: 3, choice: 1 });
  for (const choice of [-1, 4, 1.5, '1'])
    assert.equal(
      refusal(answerPollInput.safeParse({ lab: 'fenced', poll: 3, choice })),
      'the answer must be one of the choices',
    );
  assert.equal(
    refusal(revealPollInput.safeParse({ lab: 'fenced', poll: 0 })),
    'the question must be named by a number from 1',
  );
});

test('the suggested question reads the tokens of the story so far, and names only a token the row held', () => {
  const upTo = (lab: 'fenced' | 'token-as-text') => {
    const events = recorded(lab);
    const b = events.find((e) => e.actor === 'B' && (e.kind === 'write_accepted' || e.kind === 'write_rejected'));
    return factsFrom(
      events.filter((e) => e.id <= (b?.id ?? 0)),
      lab,
    );
  };
  assert.deepEqual(suggestedPoll({ id: 'a-wakes' }, upTo('fenced')), {
    question: "Will A's late write, with its token 62, be accepted over B's token 63?",
    choices: ['Yes', 'No'],
  });
  // Token as text: B's write with token 10 was refused, so the row still holds A's 9 (never B's 10).
  assert.equal(
    suggestedPoll({ id: 'a-wakes' }, upTo('token-as-text'))?.question,
    "Will A's late write, with its token 9, be accepted over the row's token 9?",
  );
  assert.equal(suggestedPoll({ id: 'a-wakes' }, {})?.question, "Will A's late write be accepted?");
  assert.equal(suggestedPoll({ id: 'setup' }, upTo('fenced')), undefined, 'the first step, a reset, has none');
});

test('a history file carries the questions, and reads them back', () => {
  const polls: PollView[] = [
    {
      id: 4,
      step: 5,
      question: 'Q?',
      choices: ['Yes', 'No'],
      state: 'revealed',
      answered: 2,
      askedAt: 1,
      tallies: [1, 1],
    },
    { id: 5, step: 6, question: 'R?', choices: ['A', 'B'], state: 'open', answered: 1, askedAt: 2 },
  ];
  const text = serializeHistory({
    lab: { id: 'fenced', kind: 'fenced', title: 'Fenced' },
    events: [],
    exportedAt: new Date(0),
    polls,
  });
  const parsed = parseHistoryFile(text);
  assert.ok(parsed.ok);
  // The file numbers a question's step as every page shows it (from 1): one numbering everywhere.
  const shown = polls.map((poll) => ({ ...poll, step: poll.step + 1 }));
  assert.deepEqual(parsed.file.polls, shown);
  assert.deepEqual(
    JSON.parse(text).polls.map((poll: { step: number }) => poll.step),
    shown.map((poll) => poll.step),
  );
  // A version 1 file counted from 0: read as the pages number it.
  const old = parseHistoryFile(
    JSON.stringify({
      ...JSON.parse(text),
      version: 1,
      polls: JSON.parse(text).polls.map((poll: { step: number }) => ({ ...poll, step: poll.step - 1 })),
    }),
  );
  assert.ok(old.ok);
  assert.deepEqual(old.ok ? old.file.polls : undefined, shown);
  const bad = JSON.parse(text);
  bad.polls[0].tallies = [-1, 1];
  const refused = parseHistoryFile(JSON.stringify(bad));
  assert.equal(refused.ok ? undefined : refused.error, 'polls[0].tallies[0]: a tally must not be negative');
});
