import type { LabId } from '../../labs/index';
import { hasDriftingClock, isFencedKind } from '../../labs/traits';
import { type ChaosCounts, describeTotals, stalePerMinute } from '../chaos/chaos-tally';
import { clockOf, type Violation } from '../checker/checker';
import { hasDetail } from '../checker/checker-violations';
import type { WireEvent } from '../core/wire';
import type { LabJudgement } from './soak-verdict';

/*
 * A soak's report, as Markdown (for a repository or a ticket) and as one HTML page the app serves
 * (app/soak/[id]). Pure: the runner gathers the facts, these functions only say them. Every
 * violation is shown with the events it names, so the report is evidence, not a claim.
 */

export type SoakLabResult = {
  lab: LabId;
  title: string;
  seed: number;
  /** The seconds its rounds were planned for: its share, and 8 s a round more (lib/chaos/run-chaos.ts). */
  seconds: number;
  /** 1, or more when its judgement was not settled when its share was up. */
  rounds: number;
  workers: number;
  totals: ChaosCounts;
  violations: Violation[];
  /** The events the violations name, by id. */
  named: WireEvent[];
  judgement: LabJudgement;
  expected: string;
  /** The lab's history, exported for /replay: its file name beside the report. */
  historyFile: string;
};

export type SoakResult = {
  id: string;
  startedAt: string;
  finishedAt: string;
  seed: number;
  minutes: number;
  /** The machine's load average (1, 5, 15 min) at the start and at the end: other work shares it. */
  load: { start: number[]; end: number[]; cpus: number };
  labs: SoakLabResult[];
};

/** At most this many violations are listed per lab (with their events); the count says how many in all. */
export const MAX_VIOLATIONS_LISTED = 20;

export const soakOk = (soak: SoakResult): boolean => soak.labs.every((lab) => lab.judgement.ok);

export function soakTotals(soak: SoakResult): { staleAttempts: number; staleAcceptedFenced: number; minutes: number } {
  // The fenced labs whose clock keeps time: the fenced drifting clock is not counted here.
  const fenced = soak.labs.filter((l) => isFencedKind(l.lab) && !hasDriftingClock(l.lab));
  return {
    staleAttempts: soak.labs.reduce((n, l) => n + l.totals.staleAttempts, 0),
    staleAcceptedFenced: fenced.reduce((n, l) => n + l.totals.staleAccepted, 0),
    minutes: soak.labs.reduce((n, l) => n + l.totals.elapsedMs, 0) / 60_000,
  };
}

const describeEvent = (e: WireEvent): string => {
  const value = typeof e.detail.value === 'string' ? ` "${e.detail.value}"` : '';
  const token = e.token === undefined ? '' : ` token ${e.token}`;
  const stored = e.storedToken === undefined ? '' : ` (row held ${e.storedToken})`;
  return `#${e.id} ${clockOf(e.at)} ${e.actor} ${e.kind}${token}${value}${stored}`;
};

const eventsOf = (violation: Violation, named: readonly WireEvent[]) =>
  violation.eventIds.map((id) => named.find((e) => e.id === id)).filter((e): e is WireEvent => e !== undefined);

const fencedSummary = (soak: SoakResult): string => {
  const t = soakTotals(soak);
  return `${t.staleAttempts} stale writes attempted under pauses, forced takeovers, held connections, crashes and database restarts in ${t.minutes.toFixed(1)} minutes of chaos; in the fenced labs ${t.staleAcceptedFenced} accepted`;
};

/** ", 2 rounds more (24 s in all)" where a lab went on past its share; nothing where it did not. */
const roundsMore = (l: SoakLabResult): string =>
  l.rounds > 1 ? `, ${l.rounds - 1} round${l.rounds > 2 ? 's' : ''} more (${l.seconds} s in all)` : '';

export function soakMarkdown(soak: SoakResult): string {
  const lines = [
    `# Soak ${soak.id}: ${soakOk(soak) ? 'every lab as expected' : 'NOT as expected'}`,
    '',
    `Seed ${soak.seed}, ${soak.minutes} min, ${soak.startedAt} to ${soak.finishedAt}. Load average at the start ${soak.load.start.join(', ')}, at the end ${soak.load.end.join(', ')} (${soak.load.cpus} CPUs).`,
    '',
    `${fencedSummary(soak)}.`,
    '',
    '| lab | seed | verdict | stale attempts (a minute) | stale accepted | grants | accepted | freezes in the window / elsewhere | forced takeovers | held connections | worker crashes | database crashes |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...soak.labs.map((l) => {
      const t = l.totals;
      return `| ${l.lab} | ${l.seed}${roundsMore(l)} | ${l.judgement.ok ? 'as expected' : '**NOT as expected**'}: ${l.judgement.says} | ${t.staleAttempts} (${stalePerMinute(t)}) | ${t.staleAccepted} | ${t.grants} | ${t.accepted} | ${t.freezes.criticalWindow} / ${t.freezes.anywhere} | ${t.forcedTakeovers} | ${t.heldConnections} | ${t.crashes} | ${t.databaseCrashes} |`;
    }),
  ];
  for (const l of soak.labs) {
    lines.push('', `## ${l.title} (${l.lab})`, '', `Expected: ${l.expected}.`, '');
    lines.push(`${describeTotals(l.totals)}.`, '', `History for /replay: \`${l.historyFile}\``);
    if (l.violations.length) {
      lines.push(
        '',
        `${l.violations.length} violations${l.violations.length > MAX_VIOLATIONS_LISTED ? `, the first ${MAX_VIOLATIONS_LISTED}` : ''}:`,
        '',
      );
      for (const v of l.violations.slice(0, MAX_VIOLATIONS_LISTED)) {
        lines.push(`- **${v.kinds.join(', ')}**: ${v.message}`);
        if (hasDetail(v)) for (const f of v.findings) lines.push(`  - ${f.message}`);
        for (const e of eventsOf(v, l.named)) lines.push(`  - ${describeEvent(e)}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * The report as a page. `historyHref(lab)` is where the app serves a lab's history file (an
 * address the server makes from the report's id and a lab id it checks, never a path).
 */
export function soakHtml(soak: SoakResult, historyHref: (lab: LabId) => string): string {
  const h = escapeHtml;
  const rows = soak.labs
    .map((l) => {
      const t = l.totals;
      return `<tr><th scope="row">${h(l.lab)}</th><td>${l.seed}${h(roundsMore(l))}</td><td class="${l.judgement.ok ? 'ok' : 'bad'}">${h(l.judgement.says)}</td><td>${t.staleAttempts} (${stalePerMinute(t)}/min)</td><td>${t.staleAccepted}</td><td>${t.grants}</td><td>${t.accepted}</td><td>${t.freezes.criticalWindow} / ${t.freezes.anywhere}</td><td>${t.forcedTakeovers}</td><td>${t.heldConnections}</td><td>${t.crashes}</td><td>${t.databaseCrashes}</td></tr>`;
    })
    .join('\n');
  const sections = soak.labs
    .map((l) => {
      const listed = l.violations.slice(0, MAX_VIOLATIONS_LISTED).map(
        (v) =>
          `<li><strong>${h(v.kinds.join(', '))}</strong>: ${h(v.message)}<ul>${(hasDetail(v) ? v.findings : [])
            .map((f) => `<li>${h(f.message)}</li>`)
            .join('')}${eventsOf(v, l.named)
            .map((e) => `<li><code>${h(describeEvent(e))}</code></li>`)
            .join('')}</ul></li>`,
      );
      return `<section><h2>${h(l.title)} (${h(l.lab)})</h2><p>Expected: ${h(l.expected)}.</p><p>${h(describeTotals(l.totals))}.</p><p><a href="${h(historyHref(l.lab))}" download>Download the history</a>, then open it in <a href="/replay">/replay</a>.</p>${l.violations.length ? `<p>${l.violations.length} violations${l.violations.length > MAX_VIOLATIONS_LISTED ? `, the first ${MAX_VIOLATIONS_LISTED}` : ''}:</p><ul>${listed.join('')}</ul>` : ''}</section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Soak ${h(soak.id)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#111;background:#fff}table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #999;padding:.25rem .5rem;text-align:left}.ok{color:#064e1b}.bad{color:#8a0000;font-weight:bold}code{font-size:13px}</style>
</head><body><main>
<h1>Soak ${h(soak.id)}: ${soakOk(soak) ? 'every lab as expected' : 'NOT as expected'}</h1>
<p>Seed ${soak.seed}, ${soak.minutes} min, ${h(soak.startedAt)} to ${h(soak.finishedAt)}. Load average at the start ${soak.load.start.join(', ')}, at the end ${soak.load.end.join(', ')} (${soak.load.cpus} CPUs).</p>
<p>${h(fencedSummary(soak))}.</p>
<table><thead><tr><th scope="col">lab</th><th scope="col">seed</th><th scope="col">verdict</th><th scope="col">stale attempts</th><th scope="col">stale accepted</th><th scope="col">grants</th><th scope="col">accepted</th><th scope="col">freezes in the window / elsewhere</th><th scope="col">forced takeovers</th><th scope="col">held connections</th><th scope="col">worker crashes</th><th scope="col">database crashes</th></tr></thead>
<tbody>${rows}</tbody></table>
${sections}
<p><a href="/soak">All soak reports</a></p>
</main></body></html>
`;
}

/**
 * The page for an address that names no report (a mistyped id, a report still being written, one
 * cleared from the data directory): a person opened it in a browser, so it says so in words, not
 * as a route's error body, and leads back to the list.
 */
export function soakNotFoundHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>No such soak report</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#111;background:#fff}</style>
</head><body><main>
<h1>No such soak report</h1>
<p>This server's data directory holds no soak report by that id: it may be mistyped, still being written by <code>npm run soak</code> (its page is written when the soak ends), or cleared.</p>
<p><a href="/soak">All soak reports</a></p>
</main></body></html>
`;
}
