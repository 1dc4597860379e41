import { defineLab } from './define';

export const driftingClock = defineLab({
  id: 'drifting-clock',
  title: 'A drifting clock',
  summary:
    "A worker judges its lease by its own clock, which runs slow by a setting; the database's clock says when the lease really ends. Writes are not fenced.",
  failure:
    "the slow-clock holder believes it still holds the lease after the database's expiry, and its write overwrites the new holder's value",
  table: 'unguarded_rows',
  rowId: 7,
  resource: 'lab/drifting-clock',
  traits: {
    fencing: 'none',
    tokenSource: 'sequence',
    textEpoch: false,
    ownGrantOnly: false,
    clock: 'worker-may-drift',
    transport: 'direct',
    runner: 'supervised-workers',
    visibility: 'shared-and-private',
    story: 'slow-clock',
  },
  compareWith: {
    lead: 'Compare:',
    lab: 'drifting-clock-fenced',
    words: 'the same slow clock, fenced',
  },
  checker: {
    verdict: 'breaks',
    rule: 'write-after-expiry',
    why: "a holder whose clock runs slow writes after its lease ran out by the database's clock",
  },
  narration: 'lib/model/walkthrough/walkthrough-drifting-clock.ts',
});
