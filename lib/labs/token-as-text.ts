import { defineLab } from './define';

export const tokenAsText = defineLab({
  id: 'token-as-text',
  title: 'Token compared as text',
  summary: "The token is compared as a string: fine until it gains a digit, then '10' < '9'.",
  failure: 'the newer holder (token 10) is rejected as stale and the older one (token 9) wins',
  table: 'unguarded_rows',
  rowId: 3,
  resource: 'lab/token-as-text',
  traits: {
    fencing: 'text-compare',
    tokenSource: 'sequence',
    textEpoch: true,
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
    rule: 'newer-token-rejected',
    why: "the newer holder's token gains a digit and is rejected as stale ('10' < '9')",
  },
  narration: 'lib/model/walkthrough/walkthrough-pause.ts',
});
