import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forkWaitWords } from './fork-wait';

/* A fork waiting in the room's queue says so (db/what-if-jobs.test.ts reads the queue). */

test('first in line: a server runs the story as soon as it has a free slot', () => {
  assert.equal(
    forkWaitWords({ ahead: 0, serversUp: true }),
    "Waiting in line: a server will run this fork's story as soon as one has a free slot",
  );
});

test('behind other jobs: how many, and what they are', () => {
  assert.equal(
    forkWaitWords({ ahead: 1, serversUp: true }),
    "Waiting in line behind 1 other job (guard attacks, forks, sweep runs): a server will run this fork's story after it",
  );
  assert.match(forkWaitWords({ ahead: 7, serversUp: true }), /^Waiting in line behind 7 other jobs /);
});

test('no server taking jobs: it does not promise one soon', () => {
  const words = forkWaitWords({ ahead: 3, serversUp: false });
  assert.equal(words, "Waiting in line: no app server is taking jobs right now; this fork's story runs once one is");
  assert.doesNotMatch(words, /soon|free slot/);
});
