import { defineLab } from './define';

export const perProcessCounter = defineLab({
  id: 'per-process-counter',
  title: 'Per-process counter',
  summary: 'Each worker numbers its grants with an in-memory counter that starts again at 1 in every process.',
  failure: "two holders present the same token, so the stale holder's write wins",
  table: 'unguarded_rows',
  rowId: 4,
  resource: 'lab/per-process-counter',
  traits: {
    fencing: 'fenced-write',
    tokenSource: 'worker-counter',
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
    rule: 'superseded-holder',
    why: 'two holders present the same counter, so a superseded holder still writes',
  },
  narration: 'lib/model/walkthrough/walkthrough-pause.ts',
});
