import type { Verdict, Violation } from '../checker/checker';
import type { WireEvent } from '../core/wire';

/*
 * The verdict on a trainee's guard, from the history checker's verdict on the attack's events: the
 * first violation in words about the guard ("your guard let token 9 overwrite token 10"), and the
 * minimal history that shows it: the events the violation names, the grants of the tokens they carry,
 * and the pauses of their writers. Pure: the attack itself runs in lib/scenario/guard-attack.ts.
 */

export type GuardVerdict = {
  passed: boolean;
  /** One sentence: the first violation, said of the guard; or why it passed. */
  headline: string;
  rule?: Violation['rule'];
  /** The checker's own words for the first violation. */
  detail?: string;
  /** The ids of the counterexample's events (in id order): empty when it passed. */
  counterexample: number[];
};

const WRITES = new Set(['write_accepted', 'write_rejected']);
const PAUSES = new Set(['pause_started', 'pause_ended']);

export function guardVerdict(events: readonly WireEvent[], verdict: Verdict): GuardVerdict {
  const first = verdict.violations[0];
  if (!first) {
    return {
      passed: true,
      headline: `your guard held: ${verdict.checked.writes} writes and ${verdict.checked.grants} grants, and no stale write got through`,
      counterexample: [],
    };
  }
  const byId = new Map(events.map((event) => [event.id, event]));
  const named = first.eventIds.map((id) => byId.get(id)).filter((e): e is WireEvent => e !== undefined);
  return {
    passed: false,
    headline: headlineOf(first, named),
    rule: first.rule,
    detail: first.message,
    counterexample: minimalHistory(events, named),
  };
}

/**
 * The verdict when the trainee's statement raised an error on a real write (0033 records it as a write
 * refused with PostgreSQL's message): the guard failed, whatever the checker says of the rest.
 */
export function guardErrorVerdict(events: readonly WireEvent[]): GuardVerdict | undefined {
  const raised = events.find((event) => event.kind === 'write_rejected' && event.outcome === 'error');
  if (!raised) return undefined;
  return {
    passed: false,
    headline: `your guard raised an error on token ${raised.token}'s write and wrote nothing: ${String(raised.detail.error ?? 'no message')}`,
    counterexample: minimalHistory(events, [raised]),
  };
}

function headlineOf(violation: Violation, named: readonly WireEvent[]): string {
  const writes = named.filter((e) => e.kind === 'write_accepted');
  const last = named.at(-1);
  switch (violation.rule) {
    case 'token-went-back': {
      // The stale write is the last one named, what it overwrote the one before (a lost update names more).
      const [newer, older] = writes.slice(-2);
      return `your guard let token ${older?.token} overwrite token ${newer?.token}`;
    }
    case 'superseded-holder': {
      const stale = writes.at(-1);
      const newer = writes.length > 1 ? writes.at(-2) : undefined;
      return newer
        ? `your guard let token ${stale?.token} write after token ${newer.token} had written`
        : `your guard let ${stale?.actor ?? 'a holder'} write with a token that was not its lease's`;
    }
    case 'newer-token-rejected':
      return `your guard turned away token ${last?.token} while the row held only token ${last?.storedToken}`;
    case 'write-after-expiry':
      return `your guard let token ${last?.token} write after its lease had run out`;
    case 'final-state':
      return 'your guard left the row holding something other than the last write it accepted';
    default:
      return `your guard broke the rule ${violation.rule}`;
  }
}

/**
 * The events that tell the violation: those it names, the grants of the tokens they carry, and the
 * pauses and sends of the same writers up to the last named event (a pause explains a late write).
 */
export function minimalHistory(events: readonly WireEvent[], named: readonly WireEvent[]): number[] {
  const ids = new Set(named.map((e) => e.id));
  const tokens = new Set(named.flatMap((e) => [e.token, e.storedToken]).filter((t) => t !== undefined && t > 0));
  const actors = new Set(named.map((e) => e.actor));
  const until = Math.max(...named.map((e) => e.id));
  /** The last write (accepted or rejected) of each token before the last named event. */
  const lastWrite = new Map<number, number>();
  for (const event of events) {
    if (event.kind === 'lease_acquired' && event.token !== undefined && tokens.has(event.token)) ids.add(event.id);
    if (event.id > until) continue;
    if (actors.has(event.actor) && PAUSES.has(event.kind)) ids.add(event.id);
    if (WRITES.has(event.kind) && event.token !== undefined && tokens.has(event.token)) {
      lastWrite.set(event.token, event.id);
    }
  }
  for (const id of lastWrite.values()) ids.add(id);
  return [...ids].sort((a, b) => a - b);
}
