import { defineLab } from './define';

export const readCheckWrite = defineLab({
  id: 'read-check-write',
  title: 'Read, check, write',
  summary: 'SELECT last_token, compare in the app, then an UPDATE without the check.',
  failure: 'a pause between the check and the write lets the stale write through',
  table: 'unguarded_rows',
  rowId: 2,
  resource: 'lab/read-check-write',
  traits: {
    fencing: 'app-check',
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
    why: 'a holder frozen between its check and its write overwrites a newer value',
  },
  narration: 'lib/model/walkthrough/walkthrough-pause.ts',
});
