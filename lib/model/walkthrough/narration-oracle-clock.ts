import type { WireEvent } from '../core/wire';
import { claimPattern, matchesIn } from './sentence-matches';

/*
 * The narration oracle's reading of the drifting clock's clauses (narration-oracle.ts asks it): how
 * far A's slow clock moved, what its intervals are in real time, what A's clock read when it sent a
 * write, and the lease's end by the database's clock, each held to the events: A's start (its
 * settings, clockSlowPercent among them), the write_sent that carried A's reading of its clock, the
 * expiry the database recorded. A setting A's start did not record cannot be held to anything and is
 * let pass, as the oracle's other settings are.
 */

type Check = (ok: boolean, claim: string) => void;

const TIME = '(\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d)';
const VALUE = '"((?:A|B)-\\d+)"';
const ms = (secondsText: string) => Math.round(Number(secondsText) * 1000);
const matches = matchesIn;
const isStart = (e: WireEvent) => e.kind === 'worker_started' || e.kind === 'worker_restarted';
/** Whether an ISO time an event recorded reads `clock` (HH:MM:SS.mmm, as the narration says times). */
const reads = (iso: unknown, clock: string | undefined) =>
  typeof iso === 'string' && clock !== undefined && iso.includes(`T${clock}`);
/** `seconds` in narration.ts rounds to the ms: a real time said is right within that. */
const near = (said: string | undefined, exact: number) => Math.abs(ms(said ?? 'NaN') - exact) <= 1;

export function checkDriftingClock(text: string, events: readonly WireEvent[], check: Check): void {
  const start = events.findLast((e) => e.actor === 'A' && isStart(e))?.detail ?? {};
  const num = (key: string) => (typeof start[key] === 'number' ? (start[key] as number) : undefined);
  const slow = num('clockSlowPercent');
  const rate = slow === undefined ? undefined : 1 - slow / 100;

  // "for every real second it moves 250 ms"
  for (const [claim, moves] of matches(text, claimPattern`for every real second it moves (\\d+(?:\\.\\d+)?) ms`))
    check(rate === undefined || Math.abs(Number(moves) - 1000 * rate) < 0.5, `${claim}: A's clock was set otherwise`);
  // "its clock, 75 % slow, had moved 1.25 s of the 5 s"
  for (const [claim, moved, ttl] of matches(text, claimPattern`had moved ([\\d.]+) s of the ([\\d.]+) s`)) {
    const leaseTtlMs = num('leaseTtlMs');
    check(
      (leaseTtlMs === undefined || ms(ttl as string) === leaseTtlMs) &&
        (rate === undefined || near(moved, ms(ttl as string) * rate)),
      `${claim}: not what A's clock, as started, moved in its lease`,
    );
  }
  // "it renews 3.75 s after each grant, … and writes every 0.2 s: 75 % slow, that is 15 s and 0.8 s of real time"
  for (const [claim, renew, write, realRenew, realWrite] of matches(
    text,
    claimPattern`it renews ([\\d.]+) s after each grant[^:]*? and writes every ([\\d.]+) s: \\d+ % slow, that is ([\\d.]+) s and ([\\d.]+) s of real time`,
  )) {
    const [renewMs, writeMs] = [ms(renew as string), ms(write as string)];
    check(
      (num('renewEveryMs') === undefined || num('renewEveryMs') === renewMs) &&
        (num('writeEveryMs') === undefined || num('writeEveryMs') === writeMs) &&
        (rate === undefined || (near(realRenew, renewMs / rate) && near(realWrite, writeMs / rate))),
      `${claim}: not A's intervals, as started, in real time`,
    );
  }
  // Any "of real time" the pattern above did not read is a claim nothing checked.
  if (
    /of real time/.test(text) &&
    !/and writes every [\d.]+ s: \d+ % slow, that is [\d.]+ s and [\d.]+ s of real time/.test(text)
  )
    check(false, 'a real time the oracle cannot read');
  // "A's clock read 12:00:03.056, and by it A's lease ran until 12:00:06.006. A wrote "A-3" …": the write A sent then.
  for (const [claim, clock, until, value] of matches(
    text,
    claimPattern`A's clock read ${TIME}, and by it A's lease ran until ${TIME}\\. A wrote ${VALUE}`,
  ))
    check(
      events.some(
        (e) =>
          e.actor === 'A' &&
          e.kind === 'write_sent' &&
          e.detail.value === value &&
          reads(e.detail.myClock, clock) &&
          reads(e.detail.believedUntil, until),
      ),
      `${claim}: A sent no such write with that reading of its clock`,
    );
  if (
    /A's clock read/.test(text) &&
    matches(text, claimPattern`A's clock read ${TIME}, and by it A's lease ran until ${TIME}\\. A wrote ${VALUE}`)
      .length === 0
  )
    check(false, "A's clock read: a reading the oracle cannot read");
  // "the lease's end is the database's (12:00:06.010)": the end the database recorded for A's lease.
  for (const [claim, end] of matches(text, claimPattern`the lease's end is the database's \\(${TIME}\\)`))
    check(
      events.some((e) => e.actor === 'A' && e.kind === 'lease_expired' && reads(e.detail.expiresAt, end)),
      `${claim}: no lease of A's ended then`,
    );
}
