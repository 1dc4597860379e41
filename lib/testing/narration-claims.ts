import type { WireEvent } from '../model/core/wire';
import type { RowNow } from '../model/walkthrough/narration';

/*
 * Reads back every token, value, holder, time and row a walkthrough sentence names, and checks each
 * against the events the database recorded and the row as it is: the list of claims that are false
 * (empty when every word holds). Used by the tests that walk each lab's story with real workers.
 */

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
  const all = (pattern: string) => [...text.matchAll(new RegExp(pattern, 'g'))];
  const writeOf = (value: string, token?: number) =>
    events.find((e) => e.detail.value === value && (token === undefined || e.token === token) && isSentOrDone(e));

  // The one ellipsis a sentence may hold is the statement's own (UPDATE … WHERE).
  check(!/(?<!UPDATE )…|undefined|NaN|Waiting for/.test(text), `a fact not recorded yet: ${text}`);
  // Every token named is one the database handed out or a write carried in this run.
  const tokens = new Set(events.flatMap((e) => [e.token, e.storedToken]).filter((n) => n !== undefined));
  for (const [claim, n] of all('token,? (\\d+)')) check(tokens.has(Number(n)), `${claim}: no such token`);
  // Every value named was written by the worker it is named after, with the token named beside it.
  for (const [claim, value] of all(VALUE))
    check(writeOf(value as string)?.actor === value?.split('-')[0], `${claim}: no such write`);
  for (const [claim, value, n] of all(`${VALUE} with (?:its old )?token (\\d+)`))
    check(writeOf(value as string, Number(n)) !== undefined, `${claim}: no write of that value with that token`);
  for (const [claim, value, n, outcome, stored] of all(
    `${VALUE} with (?:its old )?token (\\d+)(?:, |: )(accepted|rejected as stale, because the row held token (\\d+))`,
  )) {
    const w = events.find((e) => isWrite(e) && e.detail.value === value && e.token === Number(n));
    check(
      outcome === 'accepted'
        ? w?.kind === 'write_accepted'
        : w?.kind === 'write_rejected' && w.storedToken === Number(stored),
      `${claim}: the write ended otherwise`,
    );
  }
  // Grants: who took the lease with which token; a takeover handed the old holder's token.
  for (const [claim, actor, n] of all('(A|B)(?:, a real process,)? took the lease[^;.]*?token,? (\\d+)'))
    check(
      events.some((e) => e.kind === 'lease_acquired' && e.actor === actor && e.token === Number(n)),
      `${claim}: no such grant`,
    );
  for (const [claim, n] of all("handed it A's token (\\d+)"))
    check(
      ['A', 'B'].every((actor) =>
        events.some((e) => e.kind === 'lease_acquired' && e.actor === actor && e.token === Number(n)),
      ),
      `${claim}: A and B were not both granted that token`,
    );
  // What A believed: the token its writes carried, however the sentence puts it.
  for (const [claim, n] of all(
    '(?:believes|believed) it (?:holds|held)(?: the lease)?,?(?: its writes carrying| with)? token (\\d+)',
  ))
    check(
      events.filter((e) => e.actor === 'A' && isWrite(e)).every((e) => e.token === Number(n)),
      `${claim}: A's writes carried another token`,
    );
  // A write said to land over B's newer value: the row held B's value when it landed.
  for (const [claim, value] of all(`${VALUE}[^.]*? over the newer value`)) {
    const w = events.find((e) => e.kind === 'write_accepted' && e.detail.value === value);
    check(w !== undefined && accepted(events.filter((e) => e.id < w.id)).at(-1)?.actor === 'B', `${claim}: not so`);
  }
  for (const [claim, from] of all(`from ${VALUE} \\(token \\d+\\) to [^:]*: B's newer value was overwritten`))
    check(from?.startsWith('B-') === true, `${claim}: the row did not hold B's value`);
  for (const [claim, at] of all("A's lease ran out at (\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d)"))
    check(
      events.some(
        (e) => e.kind === 'lease_expired' && e.actor === 'A' && String(e.detail.expiresAt).includes(`T${at}`),
      ),
      `${claim}: no such expiry`,
    );
  // What the row held before and after a write.
  for (const [claim, , fromToken, value, n] of all(`The row went from (?:${HELD}) to ${VALUE} \\(token (\\d+)\\)`)) {
    const [, fromValue] = claim.match(new RegExp(`from ${VALUE}`)) ?? [];
    const w = events.find((e) => e.kind === 'write_accepted' && e.detail.value === value && e.token === Number(n));
    const before = w && accepted(events.filter((e) => e.id < w.id)).at(-1);
    check(
      w !== undefined &&
        before?.detail.value === fromValue &&
        (fromValue === undefined || before?.token === Number(fromToken)),
      `${claim}: the row did not go that way`,
    );
  }
  for (const [claim, n] of all("B's write with token (\\d+) was refused"))
    check(
      events.some((e) => e.actor === 'B' && e.kind === 'write_rejected' && e.token === Number(n)),
      `${claim}: B's write with that token was not refused`,
    );
  for (const [claim, value, n] of all(`B's value ${VALUE} with token (\\d+) was lost: A's late write, ${VALUE}`)) {
    const w = events.find((e) => e.kind === 'write_accepted' && e.detail.value === value && e.token === Number(n));
    const next = w && accepted(events.filter((e) => e.id > w.id))[0];
    check(next?.actor === 'A' && next.detail.value === claim.match(/late write, "([^"]+)"/)?.[1], `${claim}: not so`);
  }
  // The row as it is now: its value, its token, and who wrote it.
  for (const [claim, actor, value, n] of all(
    `The row (?:still |now )?holds (?:(A|B)'s value )?${VALUE} with token (\\d+)`,
  )) {
    check(row?.value === value && row?.lastToken === Number(n), `${claim}: the row holds ${JSON.stringify(row)}`);
    if (actor) check(writeOf(value as string, Number(n))?.actor === actor, `${claim}: written by someone else`);
  }
  return wrong;
}
