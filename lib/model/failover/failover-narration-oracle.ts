import { checkHistory } from '../checker/checker';
import { verdictLine } from '../checker/checker-report';
import type { WireEvent } from '../core/wire';
import { OTHER_HOLDERS } from './failover-events';
import { failoverRun, failoverStepWords, failoverWalkthrough } from './failover-walkthrough';

/*
 * The failover walkthrough's narration oracle, as lib/model/walkthrough/narration-oracle.ts is the
 * worker labs': reads back every token, value, holder, server, outcome, comparison, sequence reading,
 * wait and verdict a failover sentence names, and checks each against the events the lab recorded:
 * the list of claims that are false (empty when every word holds). Pure. Used by the property test
 * over generated failover histories (failover-narration.test.ts) and the narration benchmark.
 */

const VALUE = '"([ABC]-\\d+|[^"]*)"';
const SERVER = '(the primary|the promoted standby)';
const serverOf = (words: string) => (words === 'the primary' ? 'primary' : 'promoted standby');
const isWrite = (e: WireEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';
const isGrant = (e: WireEvent) => e.kind === 'lease_acquired';
const promotedOf = (events: readonly WireEvent[]) => events.find((e) => e.kind === 'standby_promoted');
const rowOf = (e: WireEvent | undefined) => e?.detail.row as { value?: unknown; lastToken?: unknown } | undefined;
const leaseOf = (e: WireEvent | undefined) =>
  e?.detail.lease as { holder?: unknown; token?: unknown } | null | undefined;
/** Whether replication was cut just before event `id`: the last cut or heal before it was a cut. */
const cutBefore = (events: readonly WireEvent[], id: number) =>
  events.findLast((e) => e.id < id && (e.kind === 'replication_cut' || e.kind === 'replication_healed'))?.kind ===
  'replication_cut';

export function falseFailoverClaims(text: string, events: readonly WireEvent[]): string[] {
  const wrong: string[] = [];
  const check = (ok: boolean, claim: string) => {
    if (!ok) wrong.push(claim);
  };
  const all = (pattern: string) => [...text.matchAll(new RegExp(pattern, 'g'))];
  const promoted = promotedOf(events);

  check(!/…|undefined|NaN/.test(text), `a fact not recorded yet: ${text}`);
  // Every number named as a token is one the lab recorded: a grant's, a write's, a row's, a sequence reading.
  const recorded = new Set<number>();
  for (const e of events) {
    for (const n of [e.token, e.storedToken, e.detail.primaryLastValue, e.detail.standbyCeiling])
      if (typeof n === 'number') recorded.add(n);
    for (const n of [rowOf(e)?.lastToken, leaseOf(e)?.token]) if (typeof n === 'number') recorded.add(n);
  }
  for (const [claim, n] of all('tokens?(?: up to)?,? (\\d+)'))
    check(recorded.has(Number(n)), `${claim}: no such token`);

  // Grants: who, which token, by which server.
  for (const [claim, who, n, server] of all(`([ABC]) was granted the lease with token (\\d+) by ${SERVER}`))
    check(
      events.some(
        (e) => isGrant(e) && e.actor === who && e.token === Number(n) && e.detail.server === serverOf(server as string),
      ),
      `${claim}: no such grant`,
    );
  // B's grant: by which server, and newer, older or the same as A's first grant, computed from the numbers.
  for (const [claim, by, n, relation, aToken] of all(
    `(The primary|The promoted standby) granted B token (\\d+), (newer than|older than|the same as) A’s (\\d+)`,
  )) {
    const grant = events.find((e) => isGrant(e) && e.actor === 'B' && e.token === Number(n));
    const a = events.find((e) => isGrant(e) && e.actor === 'A');
    const [mine, theirs] = [Number(n), Number(aToken)];
    check(
      grant?.detail.server === serverOf((by as string).toLowerCase()) &&
        a?.token === theirs &&
        (relation === 'newer than' ? mine > theirs : relation === 'older than' ? mine < theirs : mine === theirs),
      `${claim}: not so`,
    );
  }
  for (const [claim, n] of all('B holds token (\\d+), and so does the standby')) {
    const grant = events.find((e) => isGrant(e) && e.actor === 'B' && e.token === Number(n));
    check(grant !== undefined && !cutBefore(events, grant.id), `${claim}: not so`);
  }
  // Writes: who, which value with which token, on which server, and the outcome with the row's token.
  for (const [claim, who, value, n, server, outcome, rowToken] of all(
    `([ABC])(?:, late,)? wrote ${VALUE} with token (\\d+): ${SERVER} (accepted it|rejected it as stale, its row holding token (\\d+))`,
  )) {
    const w = events.find(
      (e) =>
        isWrite(e) &&
        e.actor === who &&
        e.detail.value === value &&
        e.token === Number(n) &&
        e.detail.server === serverOf(server as string),
    );
    check(
      outcome === 'accepted it'
        ? w?.kind === 'write_accepted'
        : w?.kind === 'write_rejected' && w.storedToken === Number(rowToken),
      `${claim}: no such write, or it ended otherwise`,
    );
  }
  // Whether the standby had a write: replication cut or running when it happened.
  const told = (pattern: string, cut: boolean) => {
    for (const [claim, value] of all(pattern)) {
      const w = events.find((e) => isWrite(e) && e.detail.value === value);
      check(w !== undefined && cutBefore(events, w.id) === cut, `${claim}: replication was otherwise`);
    }
  };
  told(`wrote ${VALUE}[^.]*\\. Replication was cut: the standby did not receive it`, true);
  told(`wrote ${VALUE}[^.]*\\. Replication was running`, false);
  for (const [claim, n] of all('granted B token (\\d+), [^.]*, and acknowledged it at once\\. The standby, cut off')) {
    const grant = events.find((e) => isGrant(e) && e.actor === 'B' && e.token === Number(n));
    check(grant !== undefined && cutBefore(events, grant.id), `${claim}: replication was running`);
  }
  for (const [claim, value] of all(`B wrote ${VALUE}[^.]*, acknowledged at once\\. The standby, cut off`)) {
    const w = events.find((e) => isWrite(e) && e.actor === 'B' && e.detail.value === value);
    check(w !== undefined && cutBefore(events, w.id), `${claim}: replication was running`);
  }
  // Sequence readings at the cut and at the kill.
  for (const [claim, n] of all('At the cut the primary had handed out tokens up to (\\d+)'))
    check(
      events.some((e) => e.kind === 'replication_cut' && e.detail.primaryLastValue === Number(n)),
      `${claim}: not what the cut recorded`,
    );
  for (const [claim, n, ceiling] of all(
    'It had handed out tokens up to (\\d+); the standby’s copy of the sequence covers up to (\\d+)',
  ))
    check(
      events.some(
        (e) =>
          e.kind === 'primary_killed' &&
          e.detail.primaryLastValue === Number(n) &&
          e.detail.standbyCeiling === Number(ceiling),
      ),
      `${claim}: not what the kill recorded`,
    );
  for (const [claim, waited] of all('after (\\d+) ms it still waited for the standby'))
    check(
      events.some((e) => e.kind === 'grant_waiting' && e.actor === 'B' && e.detail.waitedMs === Number(waited)),
      `${claim}: B did not wait so`,
    );
  // What the promoted standby holds.
  const row = rowOf(promoted);
  const lease = leaseOf(promoted);
  for (const [claim, value, n, rest] of all(
    `The promoted standby’s row holds ${VALUE} with token (\\d+); its lease is ([^.]*)\\.`,
  )) {
    const leaseWords = lease ? `${String(lease.holder)}’s (token ${String(lease.token)})` : 'free';
    check(
      row !== undefined && row.value === value && row.lastToken === Number(n) && rest === leaseWords,
      `${claim}: the promoted standby holds otherwise`,
    );
  }
  const bAccepted = events.find((e) => e.kind === 'write_accepted' && e.actor === 'B');
  if (text.includes('B’s acknowledged write is there'))
    check(bAccepted !== undefined && row?.value === bAccepted.detail.value, 'B’s write is not on the promoted standby');
  for (const [claim, value, n, grantGone] of all(
    `B’s acknowledged write \\(${VALUE}, token (\\d+)\\) is gone(, and so is its grant)?`,
  )) {
    check(
      bAccepted !== undefined &&
        bAccepted.detail.value === value &&
        bAccepted.token === Number(n) &&
        row !== undefined &&
        row.value !== value &&
        (grantGone === undefined) === (lease?.holder === 'B'),
      `${claim}: not so`,
    );
  }
  // A's late write against the promoted standby's row.
  const late = events.find((e) => isWrite(e) && e.actor === 'A' && e.detail.server === 'promoted standby');
  if (text.includes('The row’s token was newer than A’s'))
    check(
      late?.kind === 'write_rejected' && (late.storedToken ?? 0) > (late.token ?? 0),
      'the row’s token was not newer',
    );
  if (text.includes('row held A’s own token'))
    check(late !== undefined && row?.lastToken === late.token, 'the row held another token');
  for (const [claim, n] of all('row held token (\\d+), not newer than A’s'))
    check(late !== undefined && row?.lastToken === Number(n) && Number(n) < (late.token ?? 0), `${claim}: not so`);
  // C's grant: a token handed out twice, or never before.
  for (const [claim, earlier, n] of all('(A|B|Another client) had been granted token (\\d+) by the old primary')) {
    const actor = earlier === 'Another client' ? OTHER_HOLDERS : earlier;
    check(
      events.some((e) => isGrant(e) && e.actor === actor && e.token === Number(n) && e.detail.server === 'primary') &&
        events.some((e) => isGrant(e) && e.actor === 'C' && e.token === Number(n)),
      `${claim}: not granted twice`,
    );
  }
  for (const [claim, n] of all('C was granted the lease with token (\\d+)[^.]*\\. No one was granted it before'))
    check(events.filter((e) => isGrant(e) && e.token === Number(n)).length === 1, `${claim}: it was granted before`);
  // The verdict: the checker's, on the events up to a grant of C's, and the facts its lesson names.
  for (const [claim, line] of all('The checker’s verdict: ([^.]*)\\.')) {
    const moments = events.filter((e) => isGrant(e) && e.actor === 'C');
    check(
      moments.some((c) => verdictLine(checkHistory(events.filter((e) => e.id <= c.id))) === line),
      `${claim}: not the checker's verdict at C's grant`,
    );
  }
  if (text.includes('no token was granted twice')) {
    const tokens = events.filter(isGrant).map((e) => e.token);
    check(new Set(tokens).size === tokens.length, 'a token was granted twice');
  }
  for (const [claim, outcome] of all('A’s late write (was accepted|was rejected)'))
    check(
      late?.kind === (outcome === 'was accepted' ? 'write_accepted' : 'write_rejected'),
      `${claim}: it ended otherwise`,
    );
  return wrong;
}

/** The false claims of every step done at every moment of a failover history, and how many sentences were read. */
export function falseFailoverNarration(events: readonly WireEvent[]): { wrong: string[]; sentences: number } {
  const wrong: string[] = [];
  let sentences = 0;
  for (const mode of ['async', 'sync'] as const) {
    const walkthrough = failoverWalkthrough(mode);
    for (let end = 1; end <= events.length; end++) {
      const moment = failoverRun(events.slice(0, end), mode);
      for (let i = 0; i < walkthrough.length; i++) {
        const words = failoverStepWords(walkthrough, moment, i);
        if (!words.done) continue;
        sentences += 1;
        for (const claim of falseFailoverClaims(words.text, moment))
          wrong.push(`${mode}, at event ${moment.at(-1)?.id}, step ${i + 1}: ${claim}`);
      }
    }
  }
  return { wrong, sentences };
}
