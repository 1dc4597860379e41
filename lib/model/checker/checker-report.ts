import type { WireEvent } from '../core/wire';
import { replayBounds } from '../history/replay';
import { clockOf, type Verdict } from './checker';
import { hasDetail } from './checker-violations';

/*
 * The checker's verdict as a Markdown report, to paste into an issue or a write-up: the verdict in
 * one line, each violation (a lost update once, with the rules it broke) with the events that prove it (and when they happened), and how each
 * holder's writes fared. Holder names and values come from the lab, so they are escaped.
 */

export type CheckerReportInput = {
  labTitle: string;
  labId: string;
  verdict: Verdict;
  /** The history the verdict was reached on, to give each named event its time and kind. */
  events: readonly WireEvent[];
  exportedAt: Date;
};

/** Backslash-escapes what Markdown would read as formatting, a link, HTML or a table cell's end. */
const md = (text: string): string => text.replace(/[\\`*_[\]<>|#]/g, (c) => `\\${c}`).replace(/\s*\n\s*/g, ' ');

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function verdictLine(verdict: Verdict): string {
  const { writes, grants } = verdict.checked;
  return verdict.ok
    ? `SAFE: no violation in ${plural(writes, 'write')} and ${plural(grants, 'grant')}`
    : `UNSAFE: ${plural(verdict.violations.length, 'violation')} in ${plural(writes, 'write')} and ${plural(grants, 'grant')}`;
}

type Tally = { accepted: number; rejected: number };

/** Accepted and rejected writes per holder, in order of each holder's first write. */
export function writesPerHolder(events: readonly WireEvent[]): Map<string, Tally> {
  const tally = new Map<string, Tally>();
  for (const event of events) {
    if (event.kind !== 'write_accepted' && event.kind !== 'write_rejected') continue;
    const counts = tally.get(event.actor) ?? { accepted: 0, rejected: 0 };
    if (event.kind === 'write_accepted') counts.accepted += 1;
    else counts.rejected += 1;
    tally.set(event.actor, counts);
  }
  return tally;
}

export function checkerReport({ labTitle, labId, verdict, events, exportedAt }: CheckerReportInput): string {
  const byId = new Map(events.map((event) => [event.id, event]));
  const bounds = replayBounds(events);
  const lines: string[] = [
    `# Checker report: ${md(labTitle)} (\`${labId.replace(/`/g, '')}\`)`,
    '',
    `Exported ${exportedAt.toISOString()}. ${plural(events.length, 'event')}${
      bounds ? `, database time ${clockOf(bounds.from)} to ${clockOf(bounds.to)} UTC` : ''
    }.`,
    '',
    `**${verdictLine(verdict)}**`,
  ];

  if (verdict.violations.length > 0) {
    lines.push('', '## Violations', '');
    verdict.violations.forEach((violation, i) => {
      lines.push(`${i + 1}. **${violation.kinds.join(', ')}**: ${md(violation.message)}`);
      if (hasDetail(violation)) for (const finding of violation.findings) lines.push(`   - ${md(finding.message)}`);
      for (const id of violation.eventIds) {
        const event = byId.get(id);
        lines.push(
          event
            ? `   - event ${id} at ${clockOf(event.at)}: ${md(event.actor)} ${event.kind.replace('_', ' ')}${event.token === undefined ? '' : ` (token ${event.token})`}`
            : `   - event ${id} (not in this history)`,
        );
      }
    });
  }

  const tally = writesPerHolder(events);
  lines.push('', '## Writes per holder', '');
  if (tally.size === 0) {
    lines.push('No writes were recorded.');
  } else {
    lines.push('| holder | accepted | rejected |', '| --- | ---: | ---: |');
    for (const [holder, counts] of tally) lines.push(`| ${md(holder)} | ${counts.accepted} | ${counts.rejected} |`);
  }
  return `${lines.join('\n')}\n`;
}
