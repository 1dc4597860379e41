import { defineLab } from './define';

export const delayedPacket = defineLab({
  id: 'delayed-packet',
  title: 'A delayed packet, fenced',
  summary:
    "Nothing freezes: a proxy between the worker and PostgreSQL holds the holder's write on the wire while its lease runs out. The write is fenced.",
  failure: '',
  table: 'unguarded_rows',
  rowId: 10,
  resource: 'lab/delayed-packet',
  traits: {
    fencing: 'fenced-write',
    tokenSource: 'sequence',
    textEpoch: false,
    ownGrantOnly: false,
    clock: 'database',
    transport: 'packet-relay',
    runner: 'supervised-workers',
    visibility: 'shared-and-private',
    story: 'held-packet',
  },
  compareWith: {
    lead: 'Compare:',
    lab: 'delayed-packet-unfenced',
    words: 'the same delayed packet without fencing',
  },
  checker: {
    verdict: 'holds',
    rule: null,
    why: 'every held write rejected when it arrives: 0 violations',
  },
  narration: 'lib/model/walkthrough/walkthrough-delayed-packet.ts',
});
