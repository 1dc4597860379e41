import { clockTime } from '../core/clock-time';

/*
 * What the checker hands out: one violation per thing that went wrong, a lost update counted once
 * however many rules it broke. The write that lost it is judged by several rules (the token went
 * back, its lease had been superseded, it came after the lease ran out, the row does not hold it);
 * each is a finding, kept as evidence inside the one violation, whose kinds list the rules broken.
 */

export type Rule =
  | 'token-went-back'
  | 'final-state'
  | 'superseded-holder'
  | 'token-granted-twice'
  | 'newer-token-rejected'
  | 'write-after-expiry'
  /** A failover: a write or grant the primary acknowledged is not on the promoted standby. */
  | 'acknowledged-write-lost'
  /** A failover: a write with an older token accepted after a newer one was acknowledged (and lost). */
  | 'stale-write-accepted';

/** One rule broken, with the events that show it: `kind` says it in a few words, `message` in full. */
export type Finding = { rule: Rule; kind: string; message: string; eventIds: number[] };

export type Violation = {
  /** What it is named for: the rule of its first finding. */
  rule: Rule;
  /** Every rule it broke, in the order found, each once. */
  kinds: Rule[];
  message: string;
  /** The evidence, one sentence per rule broken (a lost update's are about the same write). */
  findings: Finding[];
  /** The events its findings name, in id (commit) order: for a write, that write comes last. */
  eventIds: number[];
};

export type Write = { id: number; at: number; actor: string; token: number; value: string };

/** `endsAt`: when the lease ends by the database's clock, as its grant and renewals said. */
export type Grant = { id: number; at: number; actor: string; token: number; endsAt?: number };

/** Database time as HH:MM:SS.mmm UTC, the precision at which the interesting things happen. */
export const clockOf = clockTime;

const idsOf = (findings: readonly Finding[]) =>
  [...new Set(findings.flatMap((finding) => finding.eventIds))].sort((a, b) => a - b);
const kindsOf = (findings: readonly Finding[]) => [...new Set(findings.map((finding) => finding.rule))];
const wordsOf = (findings: readonly Finding[]) => [...new Set(findings.map((finding) => finding.kind))].join('; ');

/** A violation of one finding that is not about a write (a grant, a rejection, a failover): its own words. */
export function single(finding: Finding): Violation {
  return {
    rule: finding.rule,
    kinds: [finding.rule],
    message: finding.message,
    findings: [finding],
    eventIds: idsOf([finding]),
  };
}

/**
 * The violation of an accepted write, every finding on it in one: a lost update when it overwrote
 * another holder's value (`previous`, the row's write before it), named by what was lost.
 */
export function ofWrite(write: Write, previous: Write | undefined, findings: Finding[]): Violation {
  const lost = previous && previous.actor !== write.actor ? previous : undefined;
  const headline = lost
    ? `lost update: ${lost.actor}'s value "${lost.value}" (token ${lost.token}) overwritten by ${write.actor} with ${lost.token === write.token ? 'the same ' : ''}token ${write.token} at ${clockOf(write.at)}`
    : `${write.actor}'s write "${write.value}" with token ${write.token} accepted at ${clockOf(write.at)}`;
  return withHeadline(headline, findings);
}

/**
 * `violation` with more findings about the same loss (a failover's lost write, then a stale write
 * let through by it), headed by its first finding: a new object, the old one is not changed.
 */
export function adding(violation: Violation, findings: Finding[]): Violation {
  const all = [...violation.findings, ...findings];
  return withHeadline((all[0] as Finding).message, all);
}

function withHeadline(headline: string, findings: Finding[]): Violation {
  return {
    rule: (findings[0] as Finding).rule,
    kinds: kindsOf(findings),
    message: `${headline} — ${wordsOf(findings)}`,
    findings,
    eventIds: idsOf(findings),
  };
}

/** Markdown-free lines for a command line: the violation, then each finding indented. */
export function violationLines(violation: Violation): string[] {
  const head = `checker: ${violation.kinds.join(', ')}: ${violation.message}`;
  if (violation.findings.length === 1 && violation.findings[0]?.message === violation.message) return [head];
  return [head, ...violation.findings.map((finding) => `  ${finding.message}`)];
}

/** Whether a violation's findings say more than its message (a banner or report lists them under it). */
export const hasDetail = (violation: Violation): boolean =>
  violation.findings.length > 1 || violation.findings[0]?.message !== violation.message;
