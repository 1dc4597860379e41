import { defineLab } from './define';

export const sameTokenTakeover = defineLab({
  id: 'same-token-takeover',
  title: 'A takeover without a new token',
  summary:
    "Fresh grants mint a token, but taking over a lease that expired under another holder hands over the old holder's token; writes are fenced with <=.",
  failure: "two holders present the same token, so the stale holder's late write passes the <= check",
  table: 'unguarded_rows',
  rowId: 6,
  resource: 'lab/same-token-takeover',
  traits: {
    fencing: 'fenced-write',
    tokenSource: 'kept-on-takeover',
    textEpoch: false,
    ownGrantOnly: true,
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
    why: "a takeover hands over the old holder's token, so its late write passes the <= check",
  },
  narration: 'lib/model/walkthrough/walkthrough-pause.ts',
});
