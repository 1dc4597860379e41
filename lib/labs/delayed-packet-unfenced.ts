import { defineLab } from './define';

export const delayedPacketUnfenced = defineLab({
  id: 'delayed-packet-unfenced',
  title: 'A delayed packet, unfenced',
  summary:
    "Nothing freezes: a proxy between the worker and PostgreSQL holds the holder's write on the wire while its lease runs out. No token check.",
  failure: "the held write arrives after the new holder's and overwrites it: a lost update",
  table: 'unguarded_rows',
  rowId: 11,
  resource: 'lab/delayed-packet-unfenced',
  traits: {
    fencing: 'none',
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
    lab: 'delayed-packet',
    words: 'the same delayed packet, fenced',
  },
  checker: {
    verdict: 'breaks',
    rule: 'write-after-expiry',
    why: "a write held on the wire arrives after the lease ran out and overwrites the new holder's value",
  },
  narration: 'lib/model/walkthrough/walkthrough-delayed-packet.ts',
});
