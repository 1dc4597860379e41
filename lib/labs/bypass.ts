import { defineLab } from './define';

export const bypass = defineLab({
  id: 'bypass',
  title: 'A path that bypasses the guard',
  summary: 'Regular writes are fenced, but the catch-up path for an overdue write skips the token check.',
  failure: 'the paused holder wakes up overdue, takes the catch-up path, and overwrites the newer value',
  table: 'unguarded_rows',
  rowId: 5,
  resource: 'lab/bypass',
  traits: {
    fencing: 'catch-up-bypass',
    tokenSource: 'sequence',
    textEpoch: false,
    ownGrantOnly: false,
    clock: 'database',
    transport: 'direct',
    runner: 'supervised-workers',
    visibility: 'shared-and-private',
    story: 'pause',
  },
  compareWith: {
    lead: 'Compare:',
    lab: 'fenced',
    words: 'the pause with fencing',
  },
  checker: {
    verdict: 'breaks',
    rule: 'token-went-back',
    why: 'a holder woken overdue takes the catch-up path and overwrites a newer value',
  },
  narration: 'lib/model/walkthrough/walkthrough-pause.ts',
});
