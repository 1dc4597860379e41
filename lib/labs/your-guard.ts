import { defineLab } from './define';

export const yourGuard = defineLab({
  id: 'your-guard',
  title: 'Your guard',
  summary:
    'You write the UPDATE that protects the row ($1 value, $2 token, $3 row id); the lab runs it as a role that can touch only this lab’s table, and attacks it with the pause story across a digit boundary (token 9, then 10).',
  // Not broken on purpose: as right or as wrong as the statement its trainee writes.
  failure: '',
  // A private lab only (0033_your_guard_lab.sql): each lab gets its row from unguarded_row_ids,
  // mirrored from its own guarded_row. Row 9 only reserves the kind's place.
  table: 'unguarded_rows',
  rowId: 9,
  resource: 'lab/your-guard',
  traits: {
    fencing: 'trainee-guard',
    tokenSource: 'sequence',
    // Attacked across a digit boundary (token 9, then 10).
    textEpoch: true,
    ownGrantOnly: false,
    clock: 'database',
    transport: 'direct',
    runner: 'guard-attack',
    visibility: 'private-only',
    story: 'pause',
  },
  compareWith: {
    lead: 'Compare:',
    lab: 'fenced',
    words: 'the pause with fencing',
  },
  checker: {
    verdict: 'depends',
    rule: null,
    why: "as right or as wrong as the trainee's statement",
  },
  narration: 'lib/model/walkthrough/walkthrough-pause.ts',
});
