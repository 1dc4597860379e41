import { defineLab } from './define';

export const failover = defineLab({
  id: 'failover',
  title: 'Failover',
  summary:
    'The lease table, the token sequence and the row on a primary and a streaming standby of their own; the primary is killed and the standby promoted. Asynchronous or synchronous replication, a setting of each start.',
  failure:
    "with asynchronous replication, the primary's acknowledged grant and write are gone after the promotion, and the old holder's late write is accepted",
  // Its row, lease and sequence live on the pair (lib/supervisor/failover/): row 8 of unguarded_rows
  // only reserves its place among the labs' rows (0025_failover_events.sql), and nothing writes it.
  table: 'unguarded_rows',
  rowId: 8,
  resource: 'lab/failover',
  traits: {
    // The pair's write is fenced; its sequence is what a promotion can take back.
    fencing: 'fenced-write',
    tokenSource: 'sequence',
    textEpoch: false,
    ownGrantOnly: false,
    clock: 'database',
    transport: 'direct',
    runner: 'failover-pair',
    visibility: 'shared-only',
    story: 'primary-lost',
  },
  compareWith: {
    lead: 'Compare:',
    lab: 'fenced',
    words: 'the pause with fencing',
  },
  checker: {
    verdict: 'depends',
    rule: null,
    why: "with asynchronous replication the old holder's late write is accepted; with synchronous, 0 violations",
  },
  narration: 'lib/model/failover/failover-walkthrough.ts',
});
