import { defineLab } from './define';

export const fenced = defineLab({
  id: 'fenced',
  title: 'Fenced',
  summary: 'Every write presents its token; one atomic UPDATE … WHERE last_token <= token decides.',
  failure: '',
  table: 'protected_rows',
  rowId: 1,
  resource: 'lab/fenced',
  traits: {
    fencing: 'fenced-write',
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
    lead: 'Now watch it break:',
    lab: 'no-fencing',
    words: 'the same pause without fencing',
  },
  checker: {
    verdict: 'holds',
    rule: null,
    why: 'every stale write rejected by the guard: 0 violations',
  },
  narration: 'lib/model/walkthrough/walkthrough-pause.ts',
});
