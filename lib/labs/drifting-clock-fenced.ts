import { defineLab } from './define';

export const driftingClockFenced = defineLab({
  id: 'drifting-clock-fenced',
  title: 'A drifting clock, fenced',
  summary:
    'The same slow-clock worker, judging its lease by its own clock; every write presents its token and the row refuses one older than the last it took.',
  failure: '',
  table: 'unguarded_rows',
  rowId: 12,
  resource: 'lab/drifting-clock-fenced',
  traits: {
    fencing: 'fenced-write',
    tokenSource: 'sequence',
    textEpoch: false,
    ownGrantOnly: true,
    clock: 'worker-may-drift',
    transport: 'direct',
    runner: 'supervised-workers',
    visibility: 'shared-and-private',
    story: 'slow-clock',
  },
  compareWith: {
    lead: 'Compare:',
    lab: 'drifting-clock',
    words: 'the same slow clock without fencing',
  },
  checker: {
    verdict: 'holds',
    rule: null,
    why: "every stale write rejected by the row's token, whatever its writer's clock says: 0 violations",
  },
  narration: 'lib/model/walkthrough/walkthrough-drifting-clock.ts',
});
