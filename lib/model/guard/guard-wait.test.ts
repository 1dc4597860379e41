import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GuardResult } from './guard-inputs';
import { type Said, waitAnnouncement } from './guard-wait';

const queued = (attemptId: number, place: number, headline: string): GuardResult => ({
  attemptId,
  outcome: 'queued',
  headline,
  queue: { place, estimateSeconds: 10 },
  statement: 'UPDATE guarded_row SET value = $1 WHERE id = $3',
  hasCounterexample: false,
});

describe('what a waiting editor announces', () => {
  it('says a place once, however often its estimate changes, then each new place', () => {
    const answers = [
      queued(7, 2, '2nd in line, about 20 s'),
      queued(7, 2, '2nd in line, about 19 s'),
      queued(7, 1, '1st in line, about 10 s'),
      queued(7, 0, 'being attacked now, about 6 s left'),
      queued(7, 0, 'being attacked now, about 5 s left'),
    ];
    let said: Said | undefined;
    const heard: string[] = [];
    for (const answer of answers) {
      const next = waitAnnouncement(said, answer);
      if (next && next !== said) heard.push(next.words);
      said = next;
    }
    assert.deepEqual(heard, [
      'Your guard is 2nd in line, about 20 s',
      'Your guard is 1st in line, about 10 s',
      'Your guard is being attacked now, about 6 s left',
    ]);
  });

  it('says the place of a new attempt, even at the same place', () => {
    const first = waitAnnouncement(undefined, queued(7, 1, '1st in line, about 10 s'));
    const second = waitAnnouncement(first, queued(8, 1, '1st in line, about 12 s'));
    assert.equal(second?.words, 'Your guard is 1st in line, about 12 s');
  });

  it('says nothing of a verdict (the verdict speaks for itself) nor before the place was read', () => {
    const said = waitAnnouncement(undefined, queued(7, 1, '1st in line, about 10 s'));
    const verdict: GuardResult = { ...queued(7, 1, 'your guard held'), outcome: 'passed' };
    delete verdict.queue;
    assert.equal(waitAnnouncement(said, verdict), undefined);
    const resumed: GuardResult = { ...queued(9, 1, 'in line') };
    delete resumed.queue;
    assert.equal(waitAnnouncement(undefined, resumed), undefined);
  });
});
