import { defineLab } from './define';

export const noFencing = defineLab({
  id: 'no-fencing',
  title: 'No fencing',
  summary: 'The lease alone: writes are a plain UPDATE with no token check.',
  failure: "lost update: the paused holder's late write overwrites the new holder's value",
  table: 'unguarded_rows',
  rowId: 1,
  resource: 'lab/no-fencing',
  traits: {
    fencing: 'none',
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
    why: "a stale holder's write overwrites a newer one: a lost update",
  },
  narration: 'lib/model/walkthrough/walkthrough-pause.ts',
});
