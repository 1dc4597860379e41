import type { WireEvent } from '../core/wire';
import type { WorkerLabId } from '../lab/lab-kinds';
import type { RowNow } from './narration';
import { checkDriftingClock } from './narration-oracle-clock';
import { claimPattern, matchesIn } from './sentence-matches';
import { factsFrom, walkthroughFor } from './walkthrough';
import { stepReachedBy, walkthroughPosition } from './walkthrough-progress';

/*
 * The narration oracle: reads back every token, value, holder, time, duration, count, setting and
 * comparison a walkthrough sentence names, and checks each against the events the database recorded
 * and the row as it is: the list of claims that are false (empty when every word holds). Pure. Used
 * by the tests that walk each lab's story with real workers and by the property test over generated
 * histories (narration-properties.test.ts); `claimsChecked` counts what it read, for the benchmark.
 */

const RELATION = '(newer than|older than|the same as)';
const holds = (relation: string, a: number, b: number) =>
  relation.startsWith('newer') ? a > b : relation.startsWith('older') ? a < b : a === b;
const ARTICLE: Record<string, string> = {
  'a newer': 'newer than',
  'an older': 'older than',
  'the same': 'the same as',
};
const isStart = (e: WireEvent) => e.kind === 'worker_started' || e.kind === 'worker_restarted';
/** `0.7 s`, `1.25 s`, `30 s`: back to milliseconds. */
const ms = (secondsText: string) => Math.round(Number(secondsText) * 1000);
/** The token a freeze recorded as believed: its own, or in its words for events recorded before it had one. */
const beliefOf = (e: WireEvent) => e.token ?? Number(String(e.detail.belief ?? '').match(/^I hold token (\d+) /)?.[1]);

const isWrite = (e: WireEvent) => e.kind === 'write_accepted' || e.kind === 'write_rejected';
const isSentOrDone = (e: WireEvent) => isWrite(e) || e.kind === 'write_sent';
const accepted = (events: readonly WireEvent[]) => events.filter((e) => e.kind === 'write_accepted');
const VALUE = '"((?:A|B)-\\d+)"';
const HELD = `${VALUE} \\(token (\\d+)\\)|its value from the reset`;

export function falseClaims(text: string, events: readonly WireEvent[], row: RowNow | undefined): string[] {
  const wrong: string[] = [];
  const check = (ok: boolean, claim: string) => {
    if (!ok) wrong.push(claim);
  };
  const all = (pattern: RegExp) => matchesIn(text, pattern);
  const writeOf = (value: string, token?: number) =>
    events.find((e) => e.detail.value === value && (token === undefined || e.token === token) && isSentOrDone(e));

  // The one ellipsis a sentence may hold is the statement's own (UPDATE … WHERE).
  check(all(claimPattern`(?<!UPDATE )…|undefined|NaN|Waiting for`).length === 0, `a fact not recorded yet: ${text}`);
  // Every token named is one the database handed out or a write carried in this run.
  const named = all(claimPattern`token,? (\\d+)`);
  const tokens = named.length
    ? new Set(events.flatMap((e) => [e.token, e.storedToken]).filter((n) => n !== undefined))
    : undefined;
  for (const [claim, n] of named) check(tokens?.has(Number(n)) === true, `${claim}: no such token`);
  // Every value named was written by the worker it is named after, with the token named beside it.
  for (const [claim, value] of all(claimPattern`${VALUE}`))
    check(writeOf(value as string)?.actor === value?.split('-')[0], `${claim}: no such write`);
  for (const [claim, value, n] of all(claimPattern`${VALUE} with (?:its old |its )?token (\\d+)`))
    check(writeOf(value as string, Number(n)) !== undefined, `${claim}: no write of that value with that token`);
  for (const [claim, value, n, outcome, stored] of all(
    claimPattern`${VALUE} with (?:its old |its )?token (\\d+)(?: \\([^)]*\\))?(?:, |: )(accepted|rejected as stale, because the row held token (\\d+))`,
  )) {
    // A value written twice (a client's retry): either write may be the one named.
    const ended = events
      .filter((e) => isWrite(e) && e.detail.value === value && e.token === Number(n))
      .some((w) =>
        outcome === 'accepted'
          ? w.kind === 'write_accepted'
          : w.kind === 'write_rejected' && w.storedToken === Number(stored),
      );
    check(ended, `${claim}: the write ended otherwise`);
  }
  // A client's retry: A sent that value again, with that token, after that timeout, and the retry ended as said.
  for (const [claim, waited, value, n, outcome, stored] of all(
    claimPattern`A's client had given up waiting(?: after ([\\d.]+) s)? and sent the same write again, with the same token, on a new connection: ${VALUE} with token (\\d+), (accepted|rejected as stale, because the row held token (\\d+))`,
  )) {
    const again = (e: WireEvent) =>
      e.actor === 'A' && e.detail.attempt === 'retry' && e.detail.value === value && e.token === Number(n);
    const sent = events.find((e) => e.kind === 'write_sent' && again(e));
    const answer = sent && events.find((e) => isWrite(e) && again(e) && e.id > sent.id);
    check(
      sent !== undefined &&
        (waited === undefined || sent.detail.timedOutAfterMs === ms(waited)) &&
        answer !== undefined &&
        (outcome === 'accepted'
          ? answer.kind === 'write_accepted'
          : answer.kind === 'write_rejected' && answer.storedToken === Number(stored)),
      `${claim}: A's client retried otherwise`,
    );
    // Said of the held write: its first attempt was answered after the retry.
    const first =
      sent &&
      events.find((e) => isWrite(e) && e.actor === 'A' && e.detail.value === value && e.detail.attempt !== 'retry');
    check(
      answer !== undefined && first !== undefined && answer.id < first.id,
      `${claim}: the retry was not answered first`,
    );
  }
  // The same write applied twice: the row held that value with that token, and took it again.
  for (const [claim, value, n] of all(claimPattern`to ${VALUE} \\(token (\\d+)\\): the same write applied twice`)) {
    const twice = events
      .filter((e) => e.kind === 'write_accepted' && e.detail.value === value && e.token === Number(n))
      .some((w) => {
        const before = accepted(events.filter((e) => e.id < w.id)).at(-1);
        return before !== undefined && before.detail.value === value && before.token === w.token;
      });
    check(twice, `${claim}: not written twice in a row`);
  }
  // Grants: who took the lease with which token; a takeover handed the old holder's token.
  for (const [claim, actor, n] of all(claimPattern`(A|B)(?:, a real process,)? took the lease[^;.]*?token,? (\\d+)`))
    check(
      events.some((e) => e.kind === 'lease_acquired' && e.actor === actor && e.token === Number(n)),
      `${claim}: no such grant`,
    );
  for (const [claim, n] of all(claimPattern`handed it A's token (\\d+)`))
    check(
      ['A', 'B'].every((actor) =>
        events.some((e) => e.kind === 'lease_acquired' && e.actor === actor && e.token === Number(n)),
      ),
      `${claim}: A and B were not both granted that token`,
    );
  // What A believed: the token its freeze recorded, or the token of a write A sent after that token's lease ran out.
  for (const [claim, n] of all(
    claimPattern`(?:believes|believed) it (?:holds|held)(?: the lease)?,?(?: its writes carrying| with)? token (\\d+)`,
  )) {
    const token = Number(n);
    const froze = events.some((e) => e.actor === 'A' && e.kind === 'pause_started' && beliefOf(e) === token);
    const expiry = events.find((e) => e.actor === 'A' && e.kind === 'lease_expired' && e.token === token);
    const wroteAfter =
      expiry !== undefined &&
      events.some((e) => e.actor === 'A' && isSentOrDone(e) && e.token === token && e.id > expiry.id);
    // Running on past its lease without knowing: nothing since its expiry told A (no lease lost, no new grant).
    const stillRunning =
      expiry !== undefined &&
      !events.some(
        (e) => e.actor === 'A' && (e.kind === 'lease_lost' || e.kind === 'lease_acquired') && e.id > expiry.id,
      );
    check(froze || wroteAfter || stillRunning, `${claim}: A recorded no such belief`);
  }
  // A write said to land over B's newer value: the row held B's value when it landed.
  for (const [claim, value] of all(claimPattern`${VALUE}[^.]*? over the newer value`)) {
    const w = events.find((e) => e.kind === 'write_accepted' && e.detail.value === value);
    check(w !== undefined && accepted(events.filter((e) => e.id < w.id)).at(-1)?.actor === 'B', `${claim}: not so`);
  }
  for (const [claim, from] of all(
    claimPattern`from ${VALUE} \\(token \\d+\\) to [^:]*: B's newer value was overwritten`,
  ))
    check(from?.startsWith('B-') === true, `${claim}: the row did not hold B's value`);
  // An expiry's time, and when the sentence names it, the token of the lease that ran out then.
  for (const [claim, n, at] of all(
    claimPattern`A's lease(?: with token (\\d+))? ran out at (\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d)`,
  ))
    check(
      events.some(
        (e) =>
          e.kind === 'lease_expired' &&
          e.actor === 'A' &&
          (n === undefined || e.token === Number(n)) &&
          String(e.detail.expiresAt).includes(`T${at}`),
      ),
      `${claim}: no such expiry`,
    );
  // What the row held before and after a write.
  for (const [claim, , fromToken, value, n] of all(
    claimPattern`(?:The|Then the) row went from (?:${HELD}) to ${VALUE} \\(token (\\d+)\\)`,
  )) {
    const [, fromValue] = claim.match(new RegExp(`from ${VALUE}`)) ?? [];
    // A client's retry may write the same value with the same token twice: either write may be the one named.
    const went = events
      .filter((e) => e.kind === 'write_accepted' && e.detail.value === value && e.token === Number(n))
      .some((w) => {
        const before = accepted(events.filter((e) => e.id < w.id)).at(-1);
        return before?.detail.value === fromValue && (fromValue === undefined || before?.token === Number(fromToken));
      });
    check(went, `${claim}: the row did not go that way`);
  }
  for (const [claim, value, before] of all(
    claimPattern`A's late write, ${VALUE} with token \\d+, was accepted over (?:${HELD})`,
  )) {
    const over = claim.match(/over "([^"]+)"/)?.[1] ?? undefined;
    const held = events
      .filter((e) => e.kind === 'write_accepted' && e.detail.value === value)
      .some((w) => (accepted(events.filter((e) => e.id < w.id)).at(-1)?.detail.value ?? undefined) === over);
    check(held, `${claim}: the row held otherwise (${String(before)})`);
  }
  for (const [claim, value, n] of all(
    claimPattern`A's late write, ${VALUE} with token \\d+, was accepted over [^,.]*, before B's write with token (\\d+) reached the row`,
  )) {
    const late = events.find((e) => e.kind === 'write_accepted' && e.detail.value === value);
    check(
      late !== undefined &&
        events.some((e) => e.actor === 'B' && isWrite(e) && e.token === Number(n) && e.id > late.id),
      `${claim}: not so`,
    );
  }
  for (const [claim, n] of all(claimPattern`B's write with token (\\d+) was refused`))
    check(
      events.some((e) => e.actor === 'B' && e.kind === 'write_rejected' && e.token === Number(n)),
      `${claim}: B's write with that token was not refused`,
    );
  for (const [claim, value, n] of all(
    claimPattern`B's value ${VALUE} with token (\\d+) was lost: A's late write, ${VALUE}`,
  )) {
    const w = events.find((e) => e.kind === 'write_accepted' && e.detail.value === value && e.token === Number(n));
    const next = w && accepted(events.filter((e) => e.id > w.id))[0];
    check(next?.actor === 'A' && next.detail.value === claim.match(/late write, "([^"]+)"/)?.[1], `${claim}: not so`);
  }
  // The row as it is now: its value, its token, and who wrote it.
  for (const [claim, actor, value, n] of all(
    claimPattern`The row (?:still |now )?holds (?:(A|B)'s value )?${VALUE} with token (\\d+)`,
  )) {
    check(row?.value === value && row?.lastToken === Number(n), `${claim}: the row holds ${JSON.stringify(row)}`);
    if (actor) check(writeOf(value as string, Number(n))?.actor === actor, `${claim}: written by someone else`);
  }
  checkComparisons(text, events, check);
  checkSettingsAndDurations(text, events, check);
  checkDriftingClock(text, events, check);
  return wrong;
}

type Check = (ok: boolean, claim: string) => void;
const matches = matchesIn;

/** Every newer/older/same a sentence says, computed again from the numbers and held to the events. */
function checkComparisons(text: string, events: readonly WireEvent[], check: Check): void {
  const granted = (actor: string, n: number) =>
    events.some((e) => e.kind === 'lease_acquired' && e.actor === actor && e.token === n);
  for (const [claim, article, b, a] of matches(
    text,
    claimPattern`with (a newer|an older|the same) token, (\\d+),[^.]*?\\(A's lease that ran out had token (\\d+)\\)`,
  ))
    check(
      holds(ARTICLE[article as string] ?? '', Number(b), Number(a)) &&
        granted('B', Number(b)) &&
        events.some((e) => e.kind === 'lease_expired' && e.actor === 'A' && e.token === Number(a)),
      `${claim}: not so`,
    );
  // Beside the lease of A's that ran out before B's grant: the last expiry of A's before it, not any.
  for (const [claim, article, b] of matches(
    text,
    claimPattern`B took the lease with (a newer|an older|the same) token, (\\d+)`,
  )) {
    const grant = events.find((e) => e.kind === 'lease_acquired' && e.actor === 'B' && e.token === Number(b));
    const expired = grant && events.findLast((e) => e.kind === 'lease_expired' && e.actor === 'A' && e.id < grant.id);
    check(
      expired?.token !== undefined && holds(ARTICLE[article as string] ?? '', Number(b), expired.token),
      `${claim}: B's token is not so beside A's that ran out`,
    );
  }
  const bHad = (n: number) =>
    events.some((e) => e.actor === 'B' && (e.kind === 'lease_acquired' || isWrite(e)) && e.token === n);
  for (const [claim, a, relation, b] of matches(text, claimPattern`token (\\d+) \\(${RELATION} B's token (\\d+)\\)`))
    check(holds(relation as string, Number(a), Number(b)) && bHad(Number(b)), `${claim}: not so`);
  for (const [claim, a, relation, b] of matches(text, claimPattern`token (\\d+), ${RELATION} the row's token (\\d+)`))
    check(holds(relation as string, Number(a), Number(b)), `${claim}: not so`);
  for (const [claim, a, relation, b] of matches(text, claimPattern`the row's token (\\d+) is ${RELATION} (\\d+)`))
    check(holds(relation as string, Number(a), Number(b)), `${claim}: not so`);
  for (const [claim, a, b] of matches(text, claimPattern`the row's token (\\d+) is newer than (\\d+)`))
    check(Number(a) > Number(b), `${claim}: not so`);
  for (const [claim, a, b] of matches(text, claimPattern`(\\d+) <= (\\d+)`))
    check(Number(a) <= Number(b), `${claim}: not so`);
  // "its old token N": older than a token B was granted or wrote with.
  for (const [claim, n] of matches(text, claimPattern`its old token (\\d+)`))
    check(
      events.some((e) => e.actor === 'B' && (e.kind === 'lease_acquired' || isWrite(e)) && (e.token ?? 0) > Number(n)),
      `${claim}: no newer token of B's`,
    );
  for (const [claim, later, first] of matches(
    text,
    claimPattern`a later grant of the lease than its first: token (\\d+), not (\\d+)`,
  )) {
    const grants = events.filter((e) => e.actor === 'A' && e.kind === 'lease_acquired');
    const [x, y] = [grants.find((e) => e.token === Number(later)), grants.find((e) => e.token === Number(first))];
    check(x !== undefined && y !== undefined && x.id > y.id, `${claim}: A had no such grants`);
  }
  for (const [claim, n] of matches(
    text,
    claimPattern`a later grant of the lease than its first, with the same token, (\\d+)`,
  ))
    check(
      events.filter((e) => e.actor === 'A' && e.kind === 'lease_acquired' && e.token === Number(n)).length >= 2,
      `${claim}: A was not granted that token twice`,
    );
  for (const [claim, n] of matches(text, claimPattern`A's lease with token (\\d+) ran out`))
    check(
      events.some((e) => e.kind === 'lease_expired' && e.actor === 'A' && e.token === Number(n)),
      `${claim}: no such expiry`,
    );
  // The lost lease A recorded after A's write the sentence names last before it, in the words it recorded.
  for (const found of text.matchAll(/A recorded that it had lost the lease(?: \("([^"]*)"\))?/g)) {
    const [claim, reason] = found;
    const named = matches(text.slice(0, found.index), claimPattern`${VALUE}`).map(([, value]) => value);
    const write = named
      .map((value) => events.find((e) => e.actor === 'A' && isWrite(e) && e.detail.value === value))
      .findLast((e) => e !== undefined);
    check(
      write !== undefined &&
        events.some(
          (e) =>
            e.actor === 'A' &&
            e.kind === 'lease_lost' &&
            e.id > write.id &&
            (reason === undefined || String(e.detail.reason ?? '') === reason),
        ),
      `${claim}: A recorded no such lost lease after its write`,
    );
  }
  for (const [claim, count, tokens] of matches(
    text,
    claimPattern`B went on: (\\d+) more writes? so far, with tokens? ([\\d, ]+),`,
  )) {
    const named = String(tokens).split(', ').map(Number);
    const rejected = events.filter((e) => e.actor === 'B' && e.kind === 'write_rejected');
    check(
      named.length === Number(count) && named.every((n) => rejected.some((e) => e.token === n)),
      `${claim}: B's refusals were otherwise`,
    );
  }
  // The lessons: said only of a run that shows them.
  if (text.includes('the storage itself refused the stale token'))
    check(
      events.some((e) => e.actor === 'A' && e.kind === 'write_rejected'),
      'fencing refused no write of A’s',
    );
  if (text.includes('the rightful holder was refused and the stale holder kept the row'))
    check(
      events.some((e) => e.actor === 'B' && e.kind === 'write_rejected') && accepted(events).at(-1)?.actor === 'A',
      'the rightful holder was not refused, or the stale one did not keep the row',
    );
}

/** "its lease ran out": the expiry of the lease whose token the write carried (its grant's, the last before it). */
function expiryOf(events: readonly WireEvent[], write: WireEvent): WireEvent | undefined {
  const grant = events.findLast(
    (e) => e.actor === write.actor && e.kind === 'lease_acquired' && e.token === write.token && e.id < write.id,
  );
  return events.find(
    (e) =>
      e.actor === write.actor &&
      e.kind === 'lease_expired' &&
      e.token === write.token &&
      (grant === undefined || e.id > grant.id),
  );
}

/** Settings, durations and waits a sentence names, held to the starts and the times the events recorded. */
function checkSettingsAndDurations(text: string, events: readonly WireEvent[], check: Check): void {
  const startOf = (actor: string) => events.findLast((e) => e.actor === actor && isStart(e))?.detail ?? {};
  for (const [claim, renew, write] of matches(
    text,
    claimPattern`It renews its lease every ([\\d.]+) s and writes (?:again )?every ([\\d.]+) s`,
  )) {
    const a = startOf('A');
    check(
      a.renewEveryMs === ms(renew as string) && a.writeEveryMs === ms(write as string),
      `${claim}: A was started otherwise`,
    );
  }
  for (const [claim, ttl] of matches(text, claimPattern`A took the lease for ([\\d.]+) s by the database's clock`))
    check(startOf('A').leaseTtlMs === ms(ttl as string), `${claim}: A was started otherwise`);
  for (const [claim, retry] of matches(text, claimPattern`asked for the lease every (\\d+) ms`))
    check(startOf('B').acquireRetryMs === Number(retry), `${claim}: B was started otherwise`);
  if (text.includes('was told that A held it')) {
    // A's lease in force when B started: A's last grant before, not run out by then; B granted only after it ran out.
    const startB = events.find((e) => e.actor === 'B' && isStart(e));
    const lease = startB && events.findLast((e) => e.actor === 'A' && e.kind === 'lease_acquired' && e.id < startB.id);
    const expiry =
      lease &&
      events.find((e) => e.actor === 'A' && e.kind === 'lease_expired' && e.token === lease.token && e.id > lease.id);
    const grantB = startB && events.find((e) => e.actor === 'B' && e.kind === 'lease_acquired' && e.id > startB.id);
    check(
      startB !== undefined &&
        lease !== undefined &&
        (expiry === undefined || expiry.id > startB.id) &&
        (grantB === undefined || (expiry !== undefined && grantB.id > expiry.id)),
      'B was not kept waiting by A’s lease',
    );
  }
  for (const [claim, slow] of matches(text, claimPattern`(\\d+) % slow`))
    check(
      startOf('A').clockSlowPercent === undefined || startOf('A').clockSlowPercent === Number(slow),
      `${claim}: A's clock was set otherwise`,
    );
  // "N ms after A sent it": the outcome's database time minus the send's, for A's write of that value,
  // the send and its answer the same attempt (a client's retry sends the same value again, and is
  // answered before the held first attempt).
  const attemptOf = (e: WireEvent) => (e.detail.attempt === 'retry' ? 'retry' : 'first');
  for (const [claim, held, afterExpiry, value] of matches(
    text,
    claimPattern`PostgreSQL received A's write (\\d+) ms after A sent it, (-?\\d+) ms after A's lease ran out by the database's clock: ${VALUE}`,
  )) {
    const timed = (['first', 'retry'] as const).some((attempt) => {
      const mine = (e: WireEvent) => e.actor === 'A' && e.detail.value === value && attemptOf(e) === attempt;
      const outcome = events.find((e) => isWrite(e) && mine(e));
      const sent = events.find((e) => e.kind === 'write_sent' && mine(e));
      const expiry = outcome && expiryOf(events, outcome);
      return (
        outcome !== undefined &&
        sent !== undefined &&
        outcome.at - sent.at === Number(held) &&
        expiry !== undefined &&
        outcome.at - Date.parse(String(expiry.detail.expiresAt)) === Number(afterExpiry)
      );
    });
    check(timed, `${claim}: the times were otherwise`);
  }
  // "The proxy held those bytes": the proxy recorded catching that write (its packet_held follows the
  // write's first send, before any other send of A's, and before its answer).
  for (const [claim, value] of matches(
    text,
    claimPattern`A sent ${VALUE} with token \\d+ at [^,]*, while its lease still ran\\. The proxy held those bytes`,
  )) {
    const sent = events.find(
      (e) => e.actor === 'A' && e.kind === 'write_sent' && e.detail.value === value && attemptOf(e) === 'first',
    );
    const caught =
      sent &&
      events.find(
        (e) =>
          e.actor === 'A' &&
          e.id > sent.id &&
          (e.kind === 'write_sent' || e.kind === 'packet_held' || (isWrite(e) && e.detail.value === value)),
      );
    check(caught?.kind === 'packet_held', `${claim}: the proxy recorded no hold of that write`);
  }
  for (const [claim, value, after] of matches(
    text,
    claimPattern`A wrote ${VALUE} with (?:its old |its )?token \\d+, (-?\\d+) ms after its lease ran out`,
  )) {
    const outcome = events.find((e) => e.actor === 'A' && isWrite(e) && e.detail.value === value);
    const expiry = outcome && expiryOf(events, outcome);
    check(
      outcome !== undefined &&
        expiry !== undefined &&
        outcome.at - Date.parse(String(expiry.detail.expiresAt)) === Number(after),
      `${claim}: the times were otherwise`,
    );
  }
}

/** How many claims of each sentence the oracle can read (for the benchmark's count of sentences and claims checked). */
export function claimsIn(text: string): number {
  return (text.match(/token,? \d+|"(?:A|B)-\d+"|\d+ ms|[\d.]+ s\b|newer|older|the same/g) ?? []).length;
}

/** The row as the database has it after `events`: the last accepted write's value and token. */
export function rowAfter(events: readonly WireEvent[]): RowNow | undefined {
  const last = events.findLast((e) => e.kind === 'write_accepted');
  return last && { value: String(last.detail.value), lastToken: last.token as number };
}

/**
 * The false claims of every step reached at every moment of `events`: [] when every sentence holds; and how many sentences were read.
 */
export function falseNarration(lab: WorkerLabId, events: readonly WireEvent[]): { wrong: string[]; sentences: number } {
  const steps = walkthroughFor(lab);
  const wrong: string[] = [];
  let sentences = 0;
  for (let end = 1; end <= events.length; end++) {
    const moment = events.slice(0, end);
    const position = walkthroughPosition(steps, moment, lab);
    if (position.kind === 'off-script') continue;
    const facts = factsFrom(moment, lab);
    const row = rowAfter(moment);
    for (let i = 0; i <= stepReachedBy(steps, facts); i++) {
      const text = steps[i]?.narrate(facts, row) ?? '';
      sentences += 1;
      for (const claim of falseClaims(text, moment, row))
        wrong.push(`at event ${moment.at(-1)?.id}, step ${i + 1}: ${claim}`);
    }
  }
  return { wrong, sentences };
}
